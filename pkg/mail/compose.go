package mail

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"time"
	"unicode/utf8"
)

// Compose renders m as an RFC 5322 message from from: UTF-8 headers as
// RFC 2047 encoded-words (Thai subjects and display names), Date,
// Message-ID, MIME-Version, and a quoted-printable text/plain part, wrapped
// with a text/html part in multipart/alternative when m.HTML is set. Lines
// end in CRLF.
func Compose(from string, m Message, now time.Time) ([]byte, error) {
	if err := validate(m); err != nil {
		return nil, err
	}
	fromAddr, err := mail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("mail: from %q: %w", from, err)
	}
	toAddr, _ := mail.ParseAddress(m.To)

	var b bytes.Buffer
	header := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	header("From", fromAddr.String())
	header("To", toAddr.String())
	header("Subject", encodeHeader(m.Subject))
	header("Date", now.Format(time.RFC1123Z))
	header("Message-ID", messageID(fromAddr.Address))
	header("MIME-Version", "1.0")

	if m.HTML == "" {
		header("Content-Type", "text/plain; charset=UTF-8")
		header("Content-Transfer-Encoding", "quoted-printable")
		b.WriteString("\r\n")
		if err := writeQP(&b, m.Text); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	header("Content-Type", mime.FormatMediaType("multipart/alternative", map[string]string{"boundary": mw.Boundary()}))
	b.WriteString("\r\n")
	parts := []struct{ ctype, content string }{{"text/plain; charset=UTF-8", m.Text}, {"text/html; charset=UTF-8", m.HTML}}
	for _, p := range parts {
		if p.content == "" {
			continue
		}
		w, err := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {p.ctype},
			"Content-Transfer-Encoding": {"quoted-printable"},
		})
		if err != nil {
			return nil, err
		}
		if err := writeQP(w, p.content); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	b.Write(body.Bytes())
	return b.Bytes(), nil
}

type writer interface{ Write([]byte) (int, error) }

func writeQP(w writer, s string) error {
	qp := quotedprintable.NewWriter(w)
	// Normalise line ends; the QP writer turns "\n" into CRLF.
	if _, err := qp.Write([]byte(strings.ReplaceAll(s, "\r\n", "\n"))); err != nil {
		return err
	}
	if err := qp.Close(); err != nil {
		return err
	}
	_, err := w.Write([]byte("\r\n"))
	return err
}

// encodeHeader returns s unchanged when it is printable ASCII, else as
// base64 encoded-words folded onto continuation lines.
func encodeHeader(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] < 0x20 {
			ascii = false
			break
		}
	}
	if ascii && len(s) < 900 {
		return s
	}
	enc := mime.BEncoding.Encode("UTF-8", s)
	// The encoder separates the encoded-words (at most 75 bytes each) with
	// spaces; fold there.
	return strings.ReplaceAll(enc, "?= =?", "?=\r\n =?")
}

func messageID(fromAddress string) string {
	domain := "bidradar.local"
	if i := strings.LastIndexByte(fromAddress, '@'); i >= 0 && i < len(fromAddress)-1 {
		domain = fromAddress[i+1:]
	}
	r := make([]byte, 16)
	_, _ = rand.Read(r)
	return "<" + hex.EncodeToString(r) + "@" + domain + ">"
}
