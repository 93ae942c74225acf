package authsvc_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"bidradar/gen/auth/v1/authv1connect"
)

// fuzzRPC posts arbitrary bytes as a Connect JSON (or binary) request to
// procedure and checks that the service answers with a client error or a
// success, never a 5xx, and that error bodies carry a message.
func fuzzRPC(f *testing.F, procedure string, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s), false)
	}
	f.Add([]byte("\x0a\x03abc\x12\x01x"), true)
	e := start(f)
	url := "http://" + e.addr + procedure
	f.Fuzz(func(t *testing.T, body []byte, binary bool) {
		ctype := "application/json"
		if binary {
			ctype = "application/proto"
		}
		resp, err := http.Post(url, ctype, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 500 {
			t.Fatalf("%s answered %d to %q: %s", procedure, resp.StatusCode, body, raw)
		}
		if resp.StatusCode != http.StatusOK {
			var e struct{ Code, Message string }
			if json.Unmarshal(raw, &e) != nil || e.Code == "" || (e.Message == "" && e.Code != "unimplemented") {
				t.Fatalf("%s: error body %q", procedure, raw)
			}
			if strings.Contains(e.Message, "internal") {
				t.Fatalf("%s: internal error for %q", procedure, body)
			}
		}
	})
}

func FuzzRegisterRequest(f *testing.F) {
	fuzzRPC(f, authv1connect.AuthServiceRegisterProcedure,
		`{"username":"somchai","email":"s@example.com","password":"long enough pass","name":"สมชาย"}`,
		`{"username":"a","email":"","password":""}`,
		`{"username":"x","email":"a@b.c","password":"\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000"}`,
		`{"username":123}`, `not json`, `{}`, `[]`, `{"name":"`+strings.Repeat("ก", 200)+`"}`)
}

func FuzzOTPRequest(f *testing.F) {
	fuzzRPC(f, authv1connect.AuthServiceVerifyRegistrationProcedure,
		`{"email":"s@example.com","otp":"123456"}`, `{"email":"s@example.com","otp":"12345"}`,
		`{"email":"","otp":""}`, `{"email":"s@example.com","otp":"๑๒๓๔๕๖"}`, `{"otp":123456}`)
}

func FuzzLoginRequest(f *testing.F) {
	fuzzRPC(f, authv1connect.AuthServiceLoginProcedure,
		`{"username":"somchai","password":"long enough pass"}`, `{"username":"","password":""}`,
		`{"username":"`+strings.Repeat("a", 5000)+`","password":"x"}`)
}

func FuzzLineCallbackRequest(f *testing.F) {
	fuzzRPC(f, authv1connect.AuthServiceLineCallbackProcedure,
		`{"code":"abc","state":"def"}`, `{"error":"access_denied"}`, `{"code":"`+strings.Repeat("x", 600)+`","state":"s"}`)
}
