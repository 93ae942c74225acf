package events

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The dead letters: a message a consumer gives up on (permanent failure or
// MaxDeliver reached) is copied to <DeadLetterPrefix>.<stream>.<durable> in
// the stream StreamDeadLetter, with its original subject, event id and
// trace headers, for an operator to inspect or replay. Every durable
// consumer ensures the stream (Consumer.Prepare).
const (
	StreamDeadLetter = "DEADLETTER"
	DeadLetterPrefix = "deadletter"
)

// Headers a dead letter adds to the message it copies.
const (
	hdrOriginalSubject = "Bidradar-Original-Subject"
	hdrDeadReason      = "Bidradar-Dead-Reason"
)

// deadLetterSubject is where durable's dead letters of stream go.
func deadLetterSubject(stream, durable string) string {
	return DeadLetterPrefix + "." + stream + "." + durable
}

// deadLetterIDPrefix precedes the event id of durable's dead letters (their
// own id, so JetStream does not drop them as repeats of the event).
func deadLetterIDPrefix(durable string) string { return "dead:" + durable + ":" }

// ReplayStats sums up a ReplayDeadLetters run.
type ReplayStats struct {
	Replayed int // published again and removed from the dead letters
	// Kept: still inside the stream's duplicate window, so JetStream would
	// drop them as repeats; they stay dead letters for a later replay.
	Kept int
}

// ReplayDeadLetters publishes again, to their original subjects and oldest
// first, the messages that the consumer durable of stream gave up on
// (deadletter.<stream>.<durable>), and removes each dead letter once
// JetStream has stored its message again. The message keeps its event id,
// since consumers recognise a repeat by it (every consumer of the subject
// gets it again, and handles it as a repeat if it had it). Letters
// dead-lettered again while it runs are left for the next run.
func ReplayDeadLetters(ctx context.Context, js jetstream.JetStream, stream, durable string) (ReplayStats, error) {
	var st ReplayStats
	if stream == "" || durable == "" || strings.ContainsAny(stream+durable, ".*> ") {
		return st, errors.New("events: replay: a stream and a consumer name are required, without '.', '*', '>' or spaces")
	}
	dl, err := js.Stream(ctx, StreamDeadLetter)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return st, nil // nothing was ever dead-lettered
	}
	if err != nil {
		return st, fmt.Errorf("events: replay: dead-letter stream: %w", err)
	}
	info, err := dl.Info(ctx)
	if err != nil {
		return st, fmt.Errorf("events: replay: dead-letter stream: %w", err)
	}
	last := info.State.LastSeq
	subject := deadLetterSubject(stream, durable)
	idPrefix := deadLetterIDPrefix(durable)
	for seq := uint64(1); seq <= last; {
		dead, err := dl.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return st, fmt.Errorf("events: replay: read dead letter after %d: %w", seq, err)
		}
		if dead.Sequence > last {
			break
		}
		seq = dead.Sequence + 1
		original := dead.Header.Get(hdrOriginalSubject)
		if original == "" {
			return st, fmt.Errorf("events: replay: dead letter %d has no %s header", dead.Sequence, hdrOriginalSubject)
		}
		msg := nats.NewMsg(original)
		msg.Data = dead.Data
		for k, v := range dead.Header {
			if k != hdrOriginalSubject && k != hdrDeadReason && k != nats.MsgIdHdr {
				msg.Header[k] = v
			}
		}
		var opts []jetstream.PublishOpt
		if id, ok := strings.CutPrefix(dead.Header.Get(nats.MsgIdHdr), idPrefix); ok && id != "" {
			opts = append(opts, jetstream.WithMsgID(id))
		}
		ack, err := js.PublishMsg(ctx, msg, opts...)
		if err != nil {
			return st, fmt.Errorf("events: replay: publish dead letter %d to %s: %w", dead.Sequence, original, err)
		}
		if ack.Duplicate {
			st.Kept++
			continue
		}
		if err := dl.DeleteMsg(ctx, dead.Sequence); err != nil {
			return st, fmt.Errorf("events: replay: remove dead letter %d (published again): %w", dead.Sequence, err)
		}
		st.Replayed++
	}
	return st, nil
}
