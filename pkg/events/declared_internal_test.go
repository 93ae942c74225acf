package events

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	eventsv1 "bidradar/gen/events/v1"
)

// fakeFiles is a registry holding one proto file of package market.v1 at
// path, with a message for each declaration given (nil: no option).
func fakeFiles(t *testing.T, path string, decls map[string]*eventsv1.Event) *protoregistry.Files {
	t.Helper()
	fdp := &descriptorpb.FileDescriptorProto{
		Name: proto.String(path), Package: proto.String("market.v1"), Syntax: proto.String("proto3"),
		Dependency: []string{eventsv1.File_events_v1_event_proto.Path()},
	}
	str := descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()
	for name, decl := range decls {
		m := &descriptorpb.DescriptorProto{Name: proto.String(name), Field: []*descriptorpb.FieldDescriptorProto{
			{Name: proto.String("event_id"), Number: proto.Int32(1), Type: str, JsonName: proto.String("eventId")},
			{Name: proto.String("user_id"), Number: proto.Int32(2), Type: str, JsonName: proto.String("userId")},
		}}
		if decl != nil {
			m.Options = &descriptorpb.MessageOptions{}
			proto.SetExtension(m.Options, eventsv1.E_Event, decl)
		}
		fdp.MessageType = append(fdp.MessageType, m)
	}
	files := &protoregistry.Files{}
	if err := files.RegisterFile(eventsv1.File_events_v1_event_proto); err != nil {
		t.Fatal(err)
	}
	fd, err := protodesc.NewFile(fdp, files)
	if err != nil {
		t.Fatal(err)
	}
	if err := files.RegisterFile(fd); err != nil {
		t.Fatal(err)
	}
	return files
}

// A message of an events.proto without the option fails the scan (and so
// the test over every events.proto, and every service's start); one in
// another file is just a message.
func TestScanRefusesAnUndeclaredEvent(t *testing.T) {
	ok := &eventsv1.Event{Subject: "market.v1.award.published", Stream: "MARKET"}
	if types, err := scan(fakeFiles(t, "market/v1/events.proto", map[string]*eventsv1.Event{"AwardPublished": ok})); err != nil || len(types) != 1 {
		t.Fatalf("a declared event: %v %v", types, err)
	}
	_, err := scan(fakeFiles(t, "market/v1/events.proto", map[string]*eventsv1.Event{"AwardPublished": ok, "Award": nil}))
	if err == nil || !strings.Contains(err.Error(), "market.v1.Award (market/v1/events.proto) declares no (events.v1.event)") {
		t.Fatalf("an undeclared message of an events.proto: %v", err)
	}
	if _, err := scan(fakeFiles(t, "market/v1/awards.proto", map[string]*eventsv1.Event{"AwardPublished": ok, "Award": nil})); err != nil {
		t.Fatalf("a plain message elsewhere: %v", err)
	}
}

func TestScanRefusesBadDeclarations(t *testing.T) {
	for want, decls := range map[string]map[string]*eventsv1.Event{
		"must begin with its package":           {"A": {Subject: "projects.v1.award.published", Stream: "MARKET"}},
		"want an upper-case name":               {"A": {Subject: "market.v1.award.published", Stream: "market"}},
		"not [a-z0-9_]+ or {field}":             {"A": {Subject: "market.v1.award.*", Stream: "MARKET"}},
		"not a string field":                    {"A": {Subject: "market.v1.user.{team_id}.award", Stream: "MARKET"}},
		"share the subject":                     {"A": {Subject: "market.v1.award.x", Stream: "MARKET"}, "B": {Subject: "market.v1.award.x", Stream: "MARKET"}},
		"declares no (events.v1.event) subject": {"A": {Stream: "MARKET"}},
	} {
		if _, err := scan(fakeFiles(t, "market/v1/events.proto", decls)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want %q", decls, err, want)
		}
	}
	// A per-user subject is fine: user_id is a string field.
	if _, err := scan(fakeFiles(t, "market/v1/events.proto", map[string]*eventsv1.Event{
		"A": {Subject: "market.v1.user.{user_id}.award", Stream: "MARKET"}})); err != nil {
		t.Fatal(err)
	}
}

func TestSubjectFilters(t *testing.T) {
	for _, c := range []struct {
		filters []string
		want    string
	}{
		{[]string{"a.b.c"}, "a.b.c"},
		{[]string{"n.v1.user.*.created", "n.v1.user.*.unread"}, "n.v1.user.*.*"},
		{[]string{"a.b.c", "a.x.c"}, "a.*.c"},
		{[]string{"a.b", "a.b.c"}, "a.>"},
		{[]string{"a.b.c.d", "a.b.x"}, "a.b.>"},
	} {
		got := cover(c.filters)
		if got != c.want {
			t.Errorf("cover(%v) = %q, want %q", c.filters, got, c.want)
		}
		for _, f := range c.filters {
			if !coversFilter(got, f) {
				t.Errorf("%q does not cover %q", got, f)
			}
		}
	}
	for _, c := range []struct {
		f1, f2 string
		want   bool
	}{
		{"projects.>", "projects.v1.project.created", true},
		{"auth.v1.>", "auth.v1.user.registered", true},
		{"n.v1.user.*.created", "n.v1.user.*.created", true},
		{"n.v1.user.*.*", "n.v1.user.*.unread", true},
		{"n.v1.user.x.created", "n.v1.user.*.created", false},
		{"projects.>", "projects", false},
		{"a.b", "a.>", false},
	} {
		if got := coversFilter(c.f1, c.f2); got != c.want {
			t.Errorf("coversFilter(%q, %q) = %v", c.f1, c.f2, got)
		}
	}
	if got := mergeSubjects([]string{"projects.>"}, []string{"projects.v1.a", "other.x"}); len(got) != 2 || got[1] != "other.x" {
		t.Errorf("merge: %v", got)
	}
}
