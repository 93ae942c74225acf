package eventually_test

import (
	"testing"
	"time"

	"bidradar/pkg/testutil/eventually"
)

func TestTrueAsksUntilTheConditionHolds(t *testing.T) {
	t.Parallel()
	asked := 0
	eventually.True(t, 5*time.Second, "the third answer", func() bool { asked++; return asked == 3 })
	if asked != 3 {
		t.Fatalf("asked %d times", asked)
	}
}

// fatalT records a failure instead of ending the test.
type fatalT struct {
	testing.TB
	msg string
}

func (f *fatalT) Helper() {}
func (f *fatalT) Fatalf(format string, args ...any) {
	f.msg = format
	panic(f)
}

func TestTrueFailsAfterTheDeadline(t *testing.T) {
	t.Parallel()
	f := &fatalT{TB: t}
	start := time.Now()
	func() {
		defer func() { _ = recover() }()
		eventually.True(f, 50*time.Millisecond, "never", func() bool { return false })
	}()
	if f.msg == "" || time.Since(start) < 50*time.Millisecond {
		t.Fatalf("failed %q after %s", f.msg, time.Since(start))
	}
}
