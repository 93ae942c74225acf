// Package stripemock starts Stripe's own mock server (stripe-mock) for a
// test, on loopback ports chosen by the system, and stops it at the end.
package stripemock

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Version is the stripe-mock the tests use (`make test` installs it).
const Version = "v0.203.0"

var (
	installOnce sync.Once
	binPath     string
	installErr  error
)

// binary finds stripe-mock on PATH or in GOBIN / GOPATH/bin, installing it
// with `go install` when it is nowhere.
func binary() (string, error) {
	installOnce.Do(func() {
		if p, err := exec.LookPath("stripe-mock"); err == nil {
			binPath = p
			return
		}
		dir := os.Getenv("GOBIN")
		if dir == "" {
			out, err := exec.Command("go", "env", "GOPATH").Output()
			if err != nil {
				installErr = err
				return
			}
			dir = filepath.Join(strings.TrimSpace(strings.Split(string(out), string(os.PathListSeparator))[0]), "bin")
		}
		binPath = filepath.Join(dir, "stripe-mock")
		if _, err := os.Stat(binPath); err == nil {
			return
		}
		cmd := exec.Command("go", "install", "github.com/stripe/stripe-mock@"+Version)
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			installErr = &installError{err: err, out: string(out)}
		}
	})
	return binPath, installErr
}

type installError struct {
	err error
	out string
}

func (e *installError) Error() string { return "install stripe-mock: " + e.err.Error() + ": " + e.out }

var listening = regexp.MustCompile(`Listening for HTTP at address: (\S+)`)

// Start runs stripe-mock and returns its HTTP base URL (for STRIPE_API_BASE).
func Start(t testing.TB) string {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-http-addr", "127.0.0.1:0", "-https-addr", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() { // keep draining so stripe-mock never blocks on its output
			if m := listening.FindStringSubmatch(sc.Text()); m != nil && !sent {
				addr <- m[1]
				sent = true
			}
		}
	}()
	select {
	case a := <-addr:
		return "http://" + a
	case <-time.After(30 * time.Second):
		t.Fatal("stripe-mock did not start within 30 s")
		return ""
	}
}
