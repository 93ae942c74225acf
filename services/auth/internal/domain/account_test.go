package domain_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
	"time"

	"bidradar/services/auth/internal/domain"
)

func encode(t *testing.T, w, h int, asJPEG bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var err error
	if asJPEG {
		err = jpeg.Encode(&buf, img, nil)
	} else {
		err = png.Encode(&buf, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestValidatePicture(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString
	pngSmall, jpegSmall := encode(t, 32, 32, false), encode(t, 32, 32, true)
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"none", "", true},
		{"png", "data:image/png;base64," + b64(pngSmall), true},
		{"jpeg", "data:image/jpeg;base64," + b64(jpegSmall), true},
		{"png declared as jpeg", "data:image/jpeg;base64," + b64(pngSmall), false},
		{"svg", "data:image/svg+xml;base64," + b64([]byte("<svg/>")), false},
		{"gif type", "data:image/gif;base64," + b64(pngSmall), false},
		{"not base64", "data:image/png;base64,%%%", false},
		{"no comma", "data:image/png;base64", false},
		{"https url", "https://example.com/a.png", false},
		{"javascript", "javascript:alert(1)", false},
		{"text as png", "data:image/png;base64," + b64([]byte("hello world")), false},
		{"too large bytes", "data:image/png;base64," + b64(append(pngSmall, make([]byte, domain.PictureMaxBytes)...)), false},
		{"too many pixels", "data:image/png;base64," + b64(encode(t, 2000, 1, false)), false},
	}
	for _, tt := range tests {
		err := domain.ValidatePicture(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("%s: %v, want ok=%v", tt.name, err, tt.ok)
		}
		if err != nil && !errors.Is(err, domain.ErrPictureInvalid) {
			t.Errorf("%s: %v is not ErrPictureInvalid", tt.name, err)
		}
	}
}

func TestNormalizeContact(t *testing.T) {
	tests := []struct {
		topic, message     string
		wantTopic, wantMsg string
		wantErr            error
	}{
		{"  ใบกำกับ   ภาษี ", " ขอใบกำกับภาษี\r\nขอบคุณ 🙏 ", "ใบกำกับ ภาษี", "ขอใบกำกับภาษี\nขอบคุณ 🙏", nil},
		{"", "hi", "", "", domain.ErrContactTopic},
		{strings.Repeat("ก", 101), "hi", "", "", domain.ErrContactTopic},
		{"ok", "   ", "", "", domain.ErrContactMessage},
		{"ok", "a\x00b", "", "", domain.ErrContactMessage},
		{"ok", "โอน \u202e0001 บาท", "", "", domain.ErrContactMessage}, // bidirectional override
		{"ใบ\u2067กำกับ", "hi", "", "", domain.ErrContactTopic},
		{"ok", strings.Repeat("ข", 4001), "", "", domain.ErrContactMessage},
		{"ok", strings.Repeat("ข", 4000), "ok", strings.Repeat("ข", 4000), nil},
		{"bad\xff", "hi", "", "", domain.ErrContactTopic},
	}
	for _, tt := range tests {
		topic, msg, err := domain.NormalizeContact(tt.topic, tt.message)
		if !errors.Is(err, tt.wantErr) || (err == nil && (topic != tt.wantTopic || msg != tt.wantMsg)) {
			t.Errorf("NormalizeContact(%q, %q) = %q, %q, %v", tt.topic, tt.message, topic, msg, err)
		}
	}
}

func TestDescribeDevice(t *testing.T) {
	for ua, want := range map[string]string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36":                             "Chrome · Windows",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 Edg/131.0":                   "Edge · Windows",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1": "Safari · iPhone",
		"Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36 Line/14.1.0":                    "LINE · Android",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 14.0; rv:132.0) Gecko/20100101 Firefox/132.0":                                                     "Firefox · macOS",
		"curl/8.5.0": "curl/8.5.0",
		"":           "",
	} {
		if got := domain.DescribeDevice(ua); got != want {
			t.Errorf("DescribeDevice(%q) = %q, want %q", ua, got, want)
		}
	}
}

// One account may ask e-mail change codes for at most five different new
// addresses an hour; asking again for one of them is not a new address.
func TestCheckEmailChangeAddresses(t *testing.T) {
	now := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	recent := map[string]time.Time{}
	for i := range domain.EmailChangeAddressesPerHour {
		addr := fmt.Sprintf("a%d@example.com", i)
		if err := domain.CheckEmailChangeAddresses(recent, addr, now); err != nil {
			t.Fatalf("address %d: %v", i+1, err)
		}
		recent[addr] = now.Add(-time.Duration(50-i*10) * time.Minute) // asked 50, 40, … 10 minutes ago
	}
	if err := domain.CheckEmailChangeAddresses(recent, "a0@example.com", now); err != nil {
		t.Fatalf("an address already asked for: %v", err)
	}
	err := domain.CheckEmailChangeAddresses(recent, "new@example.com", now)
	var re *domain.RetryError
	if !errors.As(err, &re) || !errors.Is(err, domain.ErrEmailChangeTooManyBase) || re.RetryAfter != 10*time.Minute {
		t.Fatalf("a sixth address: %v; want a 429 for 10 minutes (the oldest is 50 minutes old)", err)
	}
	recent["a0@example.com"] = now.Add(-61 * time.Minute)
	if err := domain.CheckEmailChangeAddresses(recent, "new@example.com", now); err != nil {
		t.Fatalf("once the oldest is over an hour old: %v", err)
	}
}
