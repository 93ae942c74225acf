// Package natstest runs an embedded NATS server with JetStream for a test.
package natstest

import (
	"testing"

	"bidradar/pkg/events"
)

// Start starts an embedded JetStream server on a random 127.0.0.1 port with
// its store in t.TempDir(), shuts it down when the test ends and returns its
// client URL.
func Start(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	ns, url, err := events.StartEmbedded(events.EmbeddedOptions{StoreDir: dir, Port: -1})
	if err != nil {
		t.Fatalf("natstest: %v", err)
	}
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	return url
}
