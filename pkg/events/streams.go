package events

// The JetStream streams, one per producing service. A consumer ensures the
// stream it reads (EnsureStream is idempotent) so services start in any order.
const (
	StreamAuth         = "AUTH"
	StreamProjects     = "PROJECTS"
	StreamInterests    = "INTERESTS"
	StreamNotification = "NOTIFICATION"
	StreamDeadLetter   = "DEADLETTER"
)

// DeadLetterPrefix: a message a consumer gives up on (permanent failure or
// MaxDeliver reached) is copied to <prefix>.<stream>.<durable>, with its
// original subject, event id and trace headers, for an operator to inspect
// or replay.
const DeadLetterPrefix = "deadletter"
