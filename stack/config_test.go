package stack_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"bidradar/gateway/gw"
	"bidradar/pkg/runner"
	"bidradar/services/auth/authsvc"
	"bidradar/services/interests/interestssvc"
	"bidradar/services/market/marketsvc"
	"bidradar/services/notification/notificationsvc"
	"bidradar/services/projects/projectssvc"
	"bidradar/services/realtime/realtimesvc"
	"bidradar/services/subscription/subscriptionsvc"
)

// TestEveryBuildListsEveryConfigProblem: each service and the gateway,
// given a broken environment, refuse to start before connecting to
// anything, naming every variable at fault in one error.
func TestEveryBuildListsEveryConfigProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec  runner.Spec
		env   map[string]string
		names []string
	}{
		{authsvc.Spec, map[string]string{"APP_ENV": "production", "SMTP_PORT": "smtp", "LOGIN_CONCURRENCY": "0"},
			[]string{"DATABASE_URL", "NATS_URL", "SERVICE_TOKEN_KEY", "AUTH_SIGNING_KEY", "OTP_HMAC_KEY", "SMTP_HOST", "SMTP_PORT", "LOGIN_CONCURRENCY"}},
		{projectssvc.Spec, map[string]string{"DEMO_DATA": "-1", "EGP_PROJECT_CONCURRENCY": "99", "SUBSCRIPTION_TIMEOUT": "0s"},
			[]string{"DATABASE_URL", "AUTH_TARGET", "SERVICE_TOKEN_KEY", "DEMO_DATA", "EGP_PROJECT_CONCURRENCY", "SUBSCRIPTION_TIMEOUT"}},
		{interestssvc.Spec, nil, []string{"DATABASE_URL", "PROJECTS_TARGET", "AUTH_TARGET", "SERVICE_TOKEN_KEY"}},
		{subscriptionsvc.Spec, map[string]string{"STRIPE_SECRET_KEY": "sk_test_x"}, []string{"DATABASE_URL", "AUTH_TARGET", "STRIPE_WEBHOOK_SECRET"}},
		{notificationsvc.Spec, map[string]string{"SMTP_TLS": "ssl", "MAIL_FROM": "not an address"}, []string{"DATABASE_URL", "AUTH_TARGET", "SMTP_TLS", "MAIL_FROM"}},
		// With events, the owners of the searches an alert names come from the projects service.
		{notificationsvc.Spec, map[string]string{"NATS_URL": "nats://127.0.0.1:1"}, []string{"DATABASE_URL", "PROJECTS_TARGET"}},
		{realtimesvc.Spec, nil, []string{"NATS_URL", "AUTH_TARGET", "SERVICE_TOKEN_KEY"}},
		{marketsvc.Spec, map[string]string{"MARKET_FLUSH_EVERY": "-1s"}, []string{"DATABASE_URL", "PROJECTS_TARGET", "SUBSCRIPTION_TARGET", "AUTH_TARGET", "SERVICE_TOKEN_KEY", "MARKET_FLUSH_EVERY"}},
		{gw.Spec, map[string]string{"GATEWAY_MAX_BODY": "12", "GATEWAY_PASSWORD_INFLIGHT": "x", "ALLOWED_ORIGINS": "nope"},
			[]string{"AUTH_TARGET", "PROJECTS_TARGET", "INTERESTS_TARGET", "SUBSCRIPTION_TARGET", "NOTIFICATION_TARGET", "REALTIME_TARGET", "MARKET_TARGET", "SERVICE_TOKEN_KEY", "GATEWAY_MAX_BODY", "GATEWAY_PASSWORD_INFLIGHT", "ALLOWED_ORIGINS"}},
	}
	for _, tt := range tests {
		t.Run(tt.spec.Name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // nothing may be dialled: a Build that tries fails on ctx, not on config
			comp, err := tt.spec.Build(ctx, func(k string) string { return tt.env[k] }, slog.New(slog.DiscardHandler))
			if err == nil {
				t.Fatalf("started with a broken environment: %v", comp)
			}
			t.Log(err)
			for _, name := range tt.names {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("the error does not name %s:\n%v", name, err)
				}
			}
		})
	}
}
