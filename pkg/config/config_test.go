package config_test

import (
	"strings"
	"testing"
	"time"

	"bidradar/pkg/config"
)

func TestTypedValues(t *testing.T) {
	t.Parallel()
	l := config.FromMap(map[string]string{
		"ADDR":     "0.0.0.0:9000",
		"TTL":      "90s",
		"N":        " 42 ",
		"ON":       "true",
		"EMPTY":    "",
		"MODE":     "tls",
		"DB":       "postgres://app:hunter2@db:5432/auth?sslmode=disable",
		"SECRET":   "s3cr3t-value",
		"OPT_SEC":  "opt-s3cr3t",
		"PLAINURL": "nats://nats:4222",
	})
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"string set", l.String("ADDR", "x"), "0.0.0.0:9000"},
		{"string default", l.String("MISSING", "127.0.0.1:9001"), "127.0.0.1:9001"},
		{"empty counts as unset", l.String("EMPTY", "def"), "def"},
		{"duration", l.Duration("TTL", time.Minute), 90 * time.Second},
		{"duration default", l.Duration("TTL2", 5*time.Minute), 5 * time.Minute},
		{"int trims", l.Int("N", 1), 42},
		{"int default", l.Int("N2", 7), 7},
		{"bool", l.Bool("ON", false), true},
		{"bool default", l.Bool("OFF", true), true},
		{"one of", l.OneOf("MODE", "none", "none", "starttls", "tls"), "tls"},
		{"required", l.Required("DB"), "postgres://app:hunter2@db:5432/auth?sslmode=disable"},
		{"secret", l.Secret("SECRET"), "s3cr3t-value"},
		{"optional secret", l.OptionalSecret("OPT_SEC"), "opt-s3cr3t"},
		{"optional secret unset", l.OptionalSecret("NO_SEC"), ""},
		{"url without password", l.String("PLAINURL", ""), "nats://nats:4222"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if err := l.Err(); err != nil {
		t.Fatalf("Err = %v", err)
	}

	red := l.Redacted()
	wantRed := map[string]string{
		"ADDR":     "0.0.0.0:9000",
		"MISSING":  "127.0.0.1:9001",
		"TTL":      "90s",
		"TTL2":     "5m0s",
		"SECRET":   "***",
		"OPT_SEC":  "***",
		"NO_SEC":   "",
		"DB":       "postgres://app:***@db:5432/auth?sslmode=disable",
		"PLAINURL": "nats://nats:4222",
	}
	for k, want := range wantRed {
		if red[k] != want {
			t.Errorf("Redacted[%s] = %q, want %q", k, red[k], want)
		}
	}
	for k, v := range red {
		for _, secret := range []string{"hunter2", "s3cr3t"} {
			if strings.Contains(v, secret) {
				t.Errorf("Redacted[%s] leaks %q", k, v)
			}
		}
	}
}

func TestErrCollectsAllProblems(t *testing.T) {
	t.Parallel()
	l := config.FromMap(map[string]string{
		"TTL":  "five minutes",
		"NEG":  "-1s",
		"N":    "12x",
		"B":    "maybe",
		"MODE": "ssl",
		"KEY":  "",
	})
	l.Duration("TTL", time.Minute)
	l.Duration("NEG", time.Minute)
	l.Int("N", 0)
	l.Bool("B", false)
	l.OneOf("MODE", "none", "none", "tls")
	l.Required("DATABASE_URL")
	l.Secret("KEY")
	err := l.Err()
	if err == nil {
		t.Fatal("Err = nil, want problems")
	}
	for _, want := range []string{"TTL:", "NEG:", "N:", "B:", "MODE:", "DATABASE_URL: required", "KEY: required"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestSecretValueNeverInErrors(t *testing.T) {
	t.Parallel()
	// A bad non-secret value is quoted to help the operator, but Secret has
	// no parse step, so nothing it reads can reach an error.
	l := config.FromMap(map[string]string{"K": "topsecret"})
	l.Secret("K")
	l.Required("ALSO_MISSING")
	if err := l.Err(); err == nil || strings.Contains(err.Error(), "topsecret") {
		t.Fatalf("Err = %v", err)
	}
}

func TestRedactedURLForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{"postgres://u:p@h/db", "postgres://u:***@h/db"},
		{"postgres://u@h/db", "postgres://u@h/db"},
		{"postgres://h/db?user=u&password=p", "postgres://h/db?password=***&user=u"},
		{"nats://tok@h:4222", "nats://***@h:4222"},
		{"http://[::1", "***"},
	}
	for _, tt := range tests {
		l := config.FromMap(map[string]string{"U": tt.in})
		l.String("U", "")
		if got := l.Redacted()["U"]; got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv("BIDRADAR_TEST_VAR", "ok")
	if got := config.FromEnv().Required("BIDRADAR_TEST_VAR"); got != "ok" {
		t.Fatalf("got %q", got)
	}
}
