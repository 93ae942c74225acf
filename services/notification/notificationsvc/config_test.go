package notificationsvc_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"bidradar/services/notification/notificationsvc"
)

// WEBHOOK_ALLOW_PRIVATE lets webhooks reach local receivers: a development
// flag, so production refuses to start with it.
func TestWebhookDevelopmentFlagRefusedInProduction(t *testing.T) {
	vars := map[string]string{"APP_ENV": "production", "WEBHOOK_ALLOW_PRIVATE": "true"}
	_, err := notificationsvc.Build(context.Background(), func(k string) string { return vars[k] }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), "WEBHOOK_ALLOW_PRIVATE: a development flag") {
		t.Fatalf("Build: %v", err)
	}
	vars["WEBHOOK_ALLOW_PRIVATE"] = "yes please"
	if _, err := notificationsvc.Build(context.Background(), func(k string) string { return vars[k] }, slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil ||
		!strings.Contains(err.Error(), "WEBHOOK_ALLOW_PRIVATE") {
		t.Fatalf("a value that is no boolean: %v", err)
	}
}

// The rate limits are configurable, within bounds.
func TestRateLimitVariables(t *testing.T) {
	vars := map[string]string{"TEST_NOTIFICATIONS_PER_MINUTE": "0", "WEBHOOK_CHANGES_PER_HOUR": "many"}
	_, err := notificationsvc.Build(context.Background(), func(k string) string { return vars[k] }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), "TEST_NOTIFICATIONS_PER_MINUTE") || !strings.Contains(err.Error(), "WEBHOOK_CHANGES_PER_HOUR") {
		t.Fatalf("Build: %v", err)
	}
}
