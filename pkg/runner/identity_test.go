package runner_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"bidradar/pkg/config"
	"bidradar/pkg/runner"
)

// A Spec is assembled with its name in the context, which its RPC server
// signs its service tokens as; SERVICE_TOKEN_KEY is required and checked.
func TestIdentity(t *testing.T) {
	var seen string
	spec := runner.Spec{Name: "interests", Build: func(ctx context.Context, _ runner.Getenv, _ *slog.Logger) (runner.Component, error) {
		seen = runner.NameOf(ctx)
		return nil, nil
	}}
	if _, err := spec.Assemble(context.Background(), func(string) string { return "" }, slog.New(slog.DiscardHandler)); err != nil || seen != "interests" {
		t.Fatalf("assembled as %q (%v)", seen, err)
	}
	if got := runner.NameOf(context.Background()); got != "service" {
		t.Fatalf("unnamed: %q", got)
	}
	for val, want := range map[string]string{
		"":             "SERVICE_TOKEN_KEY: required but not set",
		"c2hvcnQ=":     "SERVICE_TOKEN_KEY",
		"not base64!":  "SERVICE_TOKEN_KEY",
		testServiceKey: "",
	} {
		env := config.FromMap(map[string]string{"SERVICE_TOKEN_KEY": val})
		k := runner.ReadServiceKey(env)
		err := env.Err()
		if want == "" {
			if err != nil || k == nil {
				t.Errorf("%q: %v", val, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) || k != nil {
			t.Errorf("%q: %v, want %q", val, err, want)
		}
		if err != nil && strings.Contains(err.Error(), val) && val != "" {
			t.Errorf("the key's value is in the error: %v", err)
		}
	}
}
