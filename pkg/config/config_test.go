package config_test

import (
	"math"
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

// TestRulesTable: each reader with its value gives the result and exactly
// the problems the operator needs, by name.
func TestRulesTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		read    func(l *config.Loader) any
		want    any
		problem string // "" = none
	}{
		{"int in range", map[string]string{"N": "4"}, func(l *config.Loader) any { return l.IntIn("N", 1, 1, 32) }, 4, ""},
		{"int in range default", nil, func(l *config.Loader) any { return l.IntIn("N", 4, 1, 32) }, 4, ""},
		{"int above range", map[string]string{"N": "33"}, func(l *config.Loader) any { return l.IntIn("N", 4, 1, 32) }, 33, "N: 33 is not between 1 and 32"},
		{"int below open range", map[string]string{"N": "-1"}, func(l *config.Loader) any { return l.IntIn("N", 0, 0, math.MaxInt) }, -1, "N: -1 is less than 0"},
		{"int in range not a number", map[string]string{"N": "x"}, func(l *config.Loader) any { return l.IntIn("N", 4, 1, 32) }, 4, `N: "x" is not an integer`},
		{"positive duration", map[string]string{"D": "10m"}, func(l *config.Loader) any { return l.PositiveDuration("D", time.Second) }, 10 * time.Minute, ""},
		{"positive duration zero", map[string]string{"D": "0s"}, func(l *config.Loader) any { return l.PositiveDuration("D", time.Second) }, time.Duration(0), "D: must be above zero"},
		{"positive duration default zero", nil, func(l *config.Loader) any { return l.PositiveDuration("D", 0) }, time.Duration(0), ""},
		{"positive duration garbage", map[string]string{"D": "soon"}, func(l *config.Loader) any { return l.PositiveDuration("D", 0) }, time.Duration(0), `D: "soon" is not a non-negative duration`},
		{"list", map[string]string{"L": " a, b,,c "}, func(l *config.Loader) any { return strings.Join(l.List("L", nil), "|") }, "a|b|c", ""},
		{"list default", nil, func(l *config.Loader) any { return strings.Join(l.List("L", []string{"x", "y"}), "|") }, "x|y", ""},
		{"invalid", nil, func(l *config.Loader) any { l.Invalid("K", "needs J"); return nil }, nil, "K: needs J"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := config.FromMap(tt.env)
			if got := tt.read(l); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			err := l.Err()
			switch {
			case tt.problem == "" && err != nil:
				t.Errorf("unexpected problem %v", err)
			case tt.problem != "" && (err == nil || !strings.Contains(err.Error(), tt.problem)):
				t.Errorf("problems %v, want %q", err, tt.problem)
			case tt.problem != "" && strings.Count(err.Error(), "\n") != 0:
				t.Errorf("one bad value gave several problems: %v", err)
			}
		})
	}
}

// TestFromGetenvTreatsEmptyAsUnset: the launcher's overlay answers "" for
// what it does not set, as os.Getenv does.
func TestFromGetenvTreatsEmptyAsUnset(t *testing.T) {
	t.Parallel()
	env := map[string]string{"SET": "v", "EMPTY": ""}
	l := config.FromGetenv(func(k string) string { return env[k] })
	if got := l.String("SET", "d"); got != "v" {
		t.Errorf("SET = %q", got)
	}
	if got := l.String("EMPTY", "d"); got != "d" {
		t.Errorf("EMPTY = %q, want the default", got)
	}
	l.Required("EMPTY")
	l.Required("ABSENT")
	err := l.Err()
	if err == nil || !strings.Contains(err.Error(), "EMPTY: required") || !strings.Contains(err.Error(), "ABSENT: required") {
		t.Fatalf("Err = %v, want both required problems", err)
	}
}
