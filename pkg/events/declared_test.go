package events_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	authv1 "bidradar/gen/auth/v1"
	notificationv1 "bidradar/gen/notification/v1"
	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/events"
	// Every service's events, so that All sees them all here (a service
	// links those it publishes or reads).
	_ "bidradar/gen/interests/v1"
	_ "bidradar/gen/market/v1"
	_ "bidradar/gen/subscription/v1"
	_ "bidradar/gen/teams/v1"
)

// Every top-level message of every proto/<svc>/v1/events.proto is linked in
// and declared an event, with a well-formed declaration (All checks the
// rest: subjects of their package, one owner a stream, no shared subject).
func TestEveryEventsProtoMessageIsDeclared(t *testing.T) {
	all, err := events.All()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("../../proto/*/v1/events.proto")
	if err != nil || len(files) == 0 {
		t.Fatalf("no events.proto found: %v", err)
	}
	declared := 0
	for _, f := range files {
		path := strings.TrimPrefix(filepath.ToSlash(f), "../../proto/")
		if !events.IsEventsFile(path) {
			t.Fatalf("%s: not recognised as an events file", path)
		}
		fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
		if err != nil {
			t.Errorf("%s is not linked into this test (import its generated package above): %v", path, err)
			continue
		}
		if fd.Messages().Len() == 0 {
			t.Errorf("%s declares no event", path)
		}
		for i := 0; i < fd.Messages().Len(); i++ {
			md := fd.Messages().Get(i)
			if _, err := events.TypeOf(messageOf(t, md)); err != nil {
				t.Errorf("%s: %v", path, err)
			}
			declared++
		}
	}
	if declared != len(all) {
		t.Errorf("the events.proto files hold %d messages, All knows %d events", declared, len(all))
	}
}

func messageOf(t *testing.T, md protoreflect.MessageDescriptor) protoreflect.ProtoMessage {
	t.Helper()
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err != nil {
		t.Fatal(err)
	}
	return mt.New().Interface()
}

func TestDeclarations(t *testing.T) {
	created, err := events.TypeOf((*projectsv1.ProjectCreated)(nil))
	if err != nil {
		t.Fatal(err)
	}
	if created.Subject != "projects.v1.project.created" || created.Filter != created.Subject || created.Stream != "PROJECTS" ||
		created.Producer != "projects" || created.Name != "projects.v1.ProjectCreated" {
		t.Fatalf("ProjectCreated: %+v", created)
	}
	// A per-user subject: filled from the message, "*" for consumers.
	n := &notificationv1.NotificationCreated{UserId: "0b6a3c1e-58f4-4a51-9d3e-2a5f0e9c7d11"}
	s, err := events.SubjectOf(n)
	if err != nil || s != "notification.v1.user.0b6a3c1e-58f4-4a51-9d3e-2a5f0e9c7d11.created" {
		t.Fatalf("SubjectOf = %q, %v", s, err)
	}
	nt, _ := events.TypeOf(n)
	if nt.Filter != "notification.v1.user.*.created" || !nt.Matches(s) || nt.Matches("notification.v1.user.x.unread") ||
		nt.Matches("notification.v1.user.x.y.created") || nt.Producer != "notification" {
		t.Fatalf("NotificationCreated: %+v", nt)
	}
	for _, user := range []string{"", "a.b", "*", ">", "a b"} {
		if s, err := events.SubjectOf(&notificationv1.NotificationCreated{UserId: user}); err == nil {
			t.Errorf("user %q made the subject %q", user, s)
		}
	}
	if _, err := nt.SubjectOf(&authv1.SessionEnded{}); err == nil {
		t.Error("a SessionEnded took NotificationCreated's subject")
	}
	// A shape shared by events is not one.
	if _, err := events.TypeOf(&projectsv1.MatchedProject{}); err == nil {
		t.Error("MatchedProject is declared an event")
	}
}

func TestStreams(t *testing.T) {
	subjects, err := events.StreamSubjects("NOTIFICATION")
	if err != nil || !slices.Equal(subjects, []string{"notification.v1.user.*.created", "notification.v1.user.*.unread"}) {
		t.Fatalf("NOTIFICATION: %v %v", subjects, err)
	}
	if s, err := events.StreamSubjects(events.StreamDeadLetter); err != nil || !slices.Equal(s, []string{"deadletter.>"}) {
		t.Fatalf("dead letters: %v %v", s, err)
	}
	if _, err := events.StreamSubjects("NOBODY"); err == nil {
		t.Fatal("a stream no event names has subjects")
	}
	if s, err := events.StreamsOf("auth"); err != nil || !slices.Equal(s, []string{"AUTH"}) {
		t.Fatalf("auth's streams: %v %v", s, err)
	}
	if s, err := events.StreamsOf("realtime"); err != nil || len(s) != 0 {
		t.Fatalf("realtime publishes nothing: %v %v", s, err)
	}
}

// EnsureStreams creates a stream with its declared subjects, adds one
// declared later, keeps a subject it does not know (an older or newer
// replica's), and leaves a stream whose wildcard covers them as it is.
func TestEnsureStreamsOnlyAdds(t *testing.T) {
	js := setup(t) // PROJECTS over projects.>
	ctx := context.Background()
	subjectsOf := func(name string) []string {
		t.Helper()
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return info.Config.Subjects
	}
	if err := events.EnsureStreams(ctx, js, "PROJECTS", "AUTH"); err != nil {
		t.Fatal(err)
	}
	if got := subjectsOf("PROJECTS"); !slices.Equal(got, []string{"projects.>"}) {
		t.Fatalf("PROJECTS: %v", got)
	}
	want, _ := events.StreamSubjects("AUTH")
	if got := subjectsOf("AUTH"); !slices.Equal(got, want) {
		t.Fatalf("AUTH: %v, want %v", got, want)
	}
	if _, err := js.UpdateStream(ctx, jetstream.StreamConfig{Name: "AUTH", Subjects: []string{want[0], "auth.v1.user.renamed"}}); err != nil {
		t.Fatal(err)
	}
	if err := events.EnsureStreams(ctx, js, "AUTH"); err != nil {
		t.Fatal(err)
	}
	got := subjectsOf("AUTH")
	if len(got) != len(want)+1 || !slices.Contains(got, "auth.v1.user.renamed") {
		t.Fatalf("AUTH after an update: %v", got)
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Fatalf("AUTH after an update: %v lacks %s", got, w)
		}
	}
	if err := events.EnsureStreams(ctx, js, "NOBODY"); err == nil {
		t.Fatal("a stream no event names was created")
	}
}

// No Go file outside gen/ spells a declared subject: the subject of an
// event is written in its proto, and code takes it from there (SubjectOf,
// TypeOf, a typed consumer). A per-user subject is caught by its part
// before the placeholder. The tests of this package, which check what is
// read from the declarations, are the exception.
func TestNoHandTypedSubjects(t *testing.T) {
	all, err := events.All()
	if err != nil {
		t.Fatal(err)
	}
	var spelled []string
	for _, e := range all {
		lit, _, templated := strings.Cut(e.Subject, "{")
		if templated {
			spelled = append(spelled, `"`+lit, `"`+e.Filter+`"`)
		} else {
			spelled = append(spelled, `"`+lit+`"`)
		}
	}
	root := "../.."
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "gen", "node_modules", ".git", ".data", "frontend":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || (filepath.Dir(path) == filepath.Join(root, "pkg", "events") && strings.HasSuffix(path, "_test.go")) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		for _, s := range spelled {
			if strings.Contains(string(src), s) {
				t.Errorf("%s spells the subject %s: take it from the declaration (events.SubjectOf, events.TypeOf)", strings.TrimPrefix(path, root+"/"), s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d Go files checked: is %s the repository?", checked, root)
	}
}
