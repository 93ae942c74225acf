package events

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	eventsv1 "bidradar/gen/events/v1"
)

// Type is an event message as its proto declares it with the
// (events.v1.event) option (proto/events/v1/event.proto): the subject it is
// published on, the stream that keeps it and the service that publishes it.
type Type struct {
	// Name is the message's full name, e.g. projects.v1.ProjectCreated.
	Name protoreflect.FullName
	// Subject is the declared subject, placeholders included, e.g.
	// notification.v1.user.{user_id}.created.
	Subject string
	// Filter is the subject consumers subscribe with and the stream
	// holds: "*" in place of each placeholder.
	Filter string
	// Stream keeps the event (JetStream).
	Stream string
	// Producer is the service that publishes it: the first part of its
	// proto package (projects.v1: "projects").
	Producer string

	tokens []string
	fields map[int]protoreflect.FieldDescriptor // token index → the field that fills it
}

var (
	tokenRe  = regexp.MustCompile(`^[a-z0-9_]+$`)
	fieldRe  = regexp.MustCompile(`^\{([a-z0-9_]+)\}$`)
	streamRe = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	types    sync.Map // protoreflect.MessageDescriptor → typeResult
)

type typeResult struct {
	t   *Type
	err error
}

// TypeOf returns the declaration of m's event type; it fails for a message
// that is not declared an event (no (events.v1.event) option) or whose
// declaration is malformed. m may be a nil pointer of the type.
func TypeOf(m proto.Message) (*Type, error) {
	if m == nil {
		return nil, errors.New("events: TypeOf(nil)")
	}
	return typeOf(m.ProtoReflect().Descriptor())
}

func typeOf(md protoreflect.MessageDescriptor) (*Type, error) {
	if r, ok := types.Load(md); ok {
		return r.(typeResult).t, r.(typeResult).err
	}
	t, err := parse(md)
	types.Store(md, typeResult{t, err})
	return t, err
}

// declaration returns md's (events.v1.event) option, nil without one.
func declaration(md protoreflect.MessageDescriptor) *eventsv1.Event {
	opts, ok := md.Options().(*descriptorpb.MessageOptions)
	if !ok || opts == nil || !proto.HasExtension(opts, eventsv1.E_Event) {
		return nil
	}
	ev, _ := proto.GetExtension(opts, eventsv1.E_Event).(*eventsv1.Event)
	return ev
}

func parse(md protoreflect.MessageDescriptor) (*Type, error) {
	name := md.FullName()
	decl := declaration(md)
	if decl == nil || decl.GetSubject() == "" {
		return nil, fmt.Errorf("events: %s is not an event: it declares no (events.v1.event) subject", name)
	}
	pkg := md.ParentFile().Package()
	t := &Type{Name: name, Subject: decl.GetSubject(), Stream: decl.GetStream(), Producer: string(pkg.Parent()),
		tokens: strings.Split(decl.GetSubject(), "."), fields: map[int]protoreflect.FieldDescriptor{}}
	if md.Parent() != md.ParentFile() {
		return nil, fmt.Errorf("events: %s: an event is a top-level message", name)
	}
	if !strings.HasPrefix(t.Subject, string(pkg)+".") {
		return nil, fmt.Errorf("events: %s: subject %q must begin with its package, %q", name, t.Subject, pkg+".")
	}
	if !streamRe.MatchString(t.Stream) || t.Stream == StreamDeadLetter {
		return nil, fmt.Errorf("events: %s: stream %q: want an upper-case name (not %s)", name, t.Stream, StreamDeadLetter)
	}
	if f := md.Fields().ByName("event_id"); f == nil || f.Kind() != protoreflect.StringKind || f.Cardinality() == protoreflect.Repeated {
		return nil, fmt.Errorf("events: %s: an event carries its id in a string field event_id", name)
	}
	filter := make([]string, len(t.tokens))
	for i, tok := range t.tokens {
		if m := fieldRe.FindStringSubmatch(tok); m != nil {
			f := md.Fields().ByName(protoreflect.Name(m[1]))
			if f == nil || f.Kind() != protoreflect.StringKind || f.Cardinality() == protoreflect.Repeated {
				return nil, fmt.Errorf("events: %s: subject %q: %s is not a string field of the message", name, t.Subject, m[1])
			}
			t.fields[i] = f
			filter[i] = "*"
			continue
		}
		if !tokenRe.MatchString(tok) {
			return nil, fmt.Errorf("events: %s: subject %q: token %q is not [a-z0-9_]+ or {field}", name, t.Subject, tok)
		}
		filter[i] = tok
	}
	t.Filter = strings.Join(filter, ".")
	return t, nil
}

// SubjectOf returns the subject m is published on: the declared one, its
// placeholders filled from m's fields. It fails for a message of another
// type and for a placeholder field that is empty or could not be one token.
func (t *Type) SubjectOf(m proto.Message) (string, error) {
	r := m.ProtoReflect()
	if r.Descriptor().FullName() != t.Name {
		return "", fmt.Errorf("events: a %s is not a %s", r.Descriptor().FullName(), t.Name)
	}
	if len(t.fields) == 0 {
		return t.Subject, nil
	}
	out := slices.Clone(t.tokens)
	for i, f := range t.fields {
		v := r.Get(f).String()
		if v == "" || strings.ContainsAny(v, ".*> \t\r\n") {
			return "", fmt.Errorf("events: %s: %s %q cannot fill the subject %s", t.Name, f.Name(), v, t.Subject)
		}
		out[i] = v
	}
	return strings.Join(out, "."), nil
}

// Matches reports whether subject is one this event is published on.
func (t *Type) Matches(subject string) bool {
	return matchSubject(t.Filter, subject)
}

// SubjectOf returns the subject the event m is published on (see
// Type.SubjectOf).
func SubjectOf(m proto.Message) (string, error) {
	t, err := TypeOf(m)
	if err != nil {
		return "", err
	}
	return t.SubjectOf(m)
}

// matchSubject reports whether the NATS subject filter (with * and >)
// matches subject.
func matchSubject(filter, subject string) bool {
	f, s := strings.Split(filter, "."), strings.Split(subject, ".")
	for i, tok := range f {
		if tok == ">" {
			return len(s) > i
		}
		if i >= len(s) || (tok != "*" && tok != s[i]) {
			return false
		}
	}
	return len(f) == len(s)
}

var (
	allOnce  sync.Once
	allTypes []*Type
	allErr   error
)

// All returns every event declared in the protos linked into the binary
// (sorted by name): a binary links the generated package of every event it
// publishes or reads, and with it every event of that package, so each
// stream it touches is complete. It fails when a declaration is malformed, when a message of a
// service's events.proto is not declared an event, when two events share a
// subject, or when a stream is named by events of more than one service.
func All() ([]*Type, error) {
	allOnce.Do(func() { allTypes, allErr = scan(protoregistry.GlobalFiles) })
	return allTypes, allErr
}

func scan(files *protoregistry.Files) ([]*Type, error) {
	var out []*Type
	var errs []error
	files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		eventsFile := IsEventsFile(fd.Path())
		for i := 0; i < fd.Messages().Len(); i++ {
			md := fd.Messages().Get(i)
			if declaration(md) == nil {
				if eventsFile {
					errs = append(errs, fmt.Errorf("events: %s (%s) declares no (events.v1.event): every message of an events.proto is an event; move shared shapes to another file", md.FullName(), fd.Path()))
				}
				continue
			}
			t, err := typeOf(md)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, t)
		}
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	owner := map[string]*Type{}
	filters := map[string]*Type{}
	for _, t := range out {
		if o, ok := owner[t.Stream]; ok && o.Producer != t.Producer {
			errs = append(errs, fmt.Errorf("events: stream %s is named by %s (%s) and %s (%s): a stream belongs to one service",
				t.Stream, o.Name, o.Producer, t.Name, t.Producer))
		}
		owner[t.Stream] = t
		if o, ok := filters[t.Filter]; ok {
			errs = append(errs, fmt.Errorf("events: %s and %s share the subject %s", o.Name, t.Name, t.Filter))
		}
		filters[t.Filter] = t
	}
	return out, errors.Join(errs...)
}

// IsEventsFile reports whether path is a service's events file
// ("<svc>/v1/events.proto"), every top-level message of which is an event.
func IsEventsFile(path string) bool {
	parts := strings.Split(path, "/")
	return len(parts) == 3 && parts[1] == "v1" && parts[2] == "events.proto"
}

// StreamSubjects returns the subjects of stream: the filters of the events
// that name it, in the order of their names (the dead letters' for
// StreamDeadLetter). It fails for a stream no event names.
func StreamSubjects(stream string) ([]string, error) {
	if stream == StreamDeadLetter {
		return []string{DeadLetterPrefix + ".>"}, nil
	}
	all, err := All()
	if err != nil {
		return nil, err
	}
	var subjects []string
	for _, t := range all {
		if t.Stream == stream {
			subjects = append(subjects, t.Filter)
		}
	}
	if len(subjects) == 0 {
		return nil, fmt.Errorf("events: no event declares the stream %q", stream)
	}
	return subjects, nil
}

// StreamsOf returns the streams of the events service publishes (those its
// proto package declares), sorted; none for a service that publishes none.
func StreamsOf(service string) ([]string, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range all {
		if t.Producer == service && !slices.Contains(out, t.Stream) {
			out = append(out, t.Stream)
		}
	}
	sort.Strings(out)
	return out, nil
}

// EnsureStreams creates each stream with the subjects its events declare
// (StreamSubjects), or brings an existing one up to date: a declared
// subject that none of its subjects covers yet is added, and none is ever
// removed. So a producer and its consumers create the same stream from the
// same declarations whichever starts first, and a replica of an older
// version starting during a rolling deploy cannot take away a subject a
// newer one added (a stream made before the declarations, "projects.>",
// stays as it is: it covers them all). File storage, a 2-minute
// de-duplication window (Nats-Msg-Id), messages kept 14 days.
func EnsureStreams(ctx context.Context, js jetstream.JetStream, streams ...string) error {
	for _, name := range streams {
		declared, err := StreamSubjects(name)
		if err != nil {
			return err
		}
		subjects := declared
		if s, err := js.Stream(ctx, name); err == nil {
			subjects = mergeSubjects(s.CachedInfo().Config.Subjects, declared)
		} else if !errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("events: ensure stream %s: %w", name, err)
		}
		if err := EnsureStream(ctx, js, name, subjects); err != nil {
			return err
		}
	}
	return nil
}

// mergeSubjects returns have plus each of want that none of have covers.
func mergeSubjects(have, want []string) []string {
	out := slices.Clone(have)
	for _, w := range want {
		covered := false
		for _, h := range have {
			if h == w || coversFilter(h, w) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, w)
		}
	}
	return out
}

// coversFilter reports whether every subject filter f2 matches is matched
// by f1 too.
func coversFilter(f1, f2 string) bool {
	a, b := strings.Split(f1, "."), strings.Split(f2, ".")
	for i, tok := range a {
		if tok == ">" {
			return len(b) > i
		}
		if i >= len(b) || b[i] == ">" || (tok != "*" && (b[i] == "*" || tok != b[i])) {
			return false
		}
	}
	return len(a) == len(b)
}
