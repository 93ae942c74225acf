package authsvc

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"bidradar/services/auth/internal/adapters/argon2id"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestReadSettings(t *testing.T) {
	t.Parallel()
	key := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))
	prod := map[string]string{
		"APP_ENV": "production", "DATABASE_URL": "postgres://u:secret@db/procurement", "NATS_URL": "nats://nats:4222",
		"AUTH_SIGNING_KEY": key, "OTP_HMAC_KEY": key, "SMTP_HOST": "smtp.example.com", "SERVICE_TOKEN_KEY": key,
	}
	with := func(base map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"development defaults", map[string]string{"SERVICE_TOKEN_KEY": key}, ""},
		{"without service token key", map[string]string{}, "SERVICE_TOKEN_KEY"},
		{"short service token key", map[string]string{"SERVICE_TOKEN_KEY": base64.StdEncoding.EncodeToString([]byte("short"))}, "SERVICE_TOKEN_KEY"},
		{"production complete", prod, ""},
		{"production without signing key", with(prod, "AUTH_SIGNING_KEY", ""), "AUTH_SIGNING_KEY"},
		{"production without otp key", with(prod, "OTP_HMAC_KEY", ""), "OTP_HMAC_KEY"},
		{"production without database", with(prod, "DATABASE_URL", ""), "DATABASE_URL"},
		{"production without smtp", with(prod, "SMTP_HOST", ""), "SMTP_HOST"},
		{"production with cheap argon2", with(prod, "AUTH_ARGON2_MEMORY_KIB", "64"), "AUTH_ARGON2"},
		{"short otp key", map[string]string{"OTP_HMAC_KEY": base64.StdEncoding.EncodeToString([]byte("short"))}, "OTP_HMAC_KEY"},
		{"bad signing key", map[string]string{"AUTH_SIGNING_KEY": "not base64!"}, "AUTH_SIGNING_KEY"},
		{"bad concurrency", map[string]string{"LOGIN_CONCURRENCY": "0"}, "LOGIN_CONCURRENCY"},
		{"line without secret", map[string]string{"LINE_CHANNEL_ID": "1"}, "LINE_CHANNEL_SECRET"},
		{"line bad url", map[string]string{"LINE_CHANNEL_ID": "1", "LINE_CHANNEL_SECRET": "s", "LINE_REDIRECT_URI": "ftp://x"}, "LINE_REDIRECT_URI"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _, err := loadSettings(envOf(tt.env))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err %v, want %q (config %v)", err, tt.wantErr, c)
			}
		})
	}
	// Every problem at once, each named once.
	_, _, err := loadSettings(envOf(map[string]string{
		"APP_ENV": "production", "SMTP_TLS": "ssl", "LOGIN_CONCURRENCY": "0", "LINE_CHANNEL_ID": "1", "AUTH_ARGON2_THREADS": "x",
	}))
	for _, want := range []string{"DATABASE_URL", "NATS_URL", "SERVICE_TOKEN_KEY", "AUTH_SIGNING_KEY", "OTP_HMAC_KEY", "SMTP_TLS", "SMTP_HOST", "LOGIN_CONCURRENCY", "LINE_CHANNEL_SECRET", "AUTH_ARGON2_THREADS"} {
		if err == nil || strings.Count(err.Error(), want) != 1 {
			t.Errorf("%s named %d times in %v", want, strings.Count(fmt.Sprint(err), want), err)
		}
	}
	c, env, err := loadSettings(envOf(prod))
	if err != nil {
		t.Fatal(err)
	}
	if !c.production || len(c.signingSeed) != 32 || len(c.otpKey) != 32 || c.loginConcurrency < 2 || c.argon2 != argon2id.DefaultParams {
		t.Fatalf("config %+v", c)
	}
	// The configuration the service logs at start holds no secret.
	if s := fmt.Sprint(env.Redacted()); strings.Contains(s, "secret") || strings.Contains(s, key) || !strings.Contains(s, "smtp.example.com") {
		t.Fatalf("secrets in %s", s)
	}
}
