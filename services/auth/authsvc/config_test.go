package authsvc_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"bidradar/services/auth/authsvc"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigFromEnv(t *testing.T) {
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
			c, err := authsvc.ConfigFromEnv(envOf(tt.env))
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
	_, err := authsvc.ConfigFromEnv(envOf(map[string]string{
		"APP_ENV": "production", "SMTP_TLS": "ssl", "LOGIN_CONCURRENCY": "0", "LINE_CHANNEL_ID": "1", "AUTH_ARGON2_THREADS": "x",
	}))
	for _, want := range []string{"DATABASE_URL", "NATS_URL", "SERVICE_TOKEN_KEY", "AUTH_SIGNING_KEY", "OTP_HMAC_KEY", "SMTP_TLS", "SMTP_HOST", "LOGIN_CONCURRENCY", "LINE_CHANNEL_SECRET", "AUTH_ARGON2_THREADS"} {
		if err == nil || strings.Count(err.Error(), want) != 1 {
			t.Errorf("%s named %d times in %v", want, strings.Count(fmt.Sprint(err), want), err)
		}
	}
	c, err := authsvc.ConfigFromEnv(envOf(prod))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Production() || len(c.SigningKeySeed) != 32 || c.Addr != "127.0.0.1:9001" || c.LoginConcurrency < 2 {
		t.Fatalf("config %+v", c)
	}
	if s := c.String(); strings.Contains(s, "secret") || strings.Contains(s, key) {
		t.Fatalf("secrets in %s", s)
	}
}
