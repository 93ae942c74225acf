package mail

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
)

// DevSender is the development sender used when SMTP_HOST is unset: it
// writes each message as an .eml file into a directory and logs it,
// including its text body (development only: the body may hold one-time
// codes, which is the point of this sender).
type DevSender struct {
	dir  string
	from string
	log  *slog.Logger
}

// NewDevSender returns a DevSender writing into dir (created if missing).
func NewDevSender(dir, from string, log *slog.Logger) (*DevSender, error) {
	if dir == "" {
		dir = DefaultDir
	}
	if from == "" {
		from = DefaultFrom
	}
	if log == nil {
		log = slog.Default()
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("mail: create %s: %w", dir, err)
	}
	return &DevSender{dir: dir, from: from, log: log}, nil
}

// Send writes m to <dir>/<time>-<random>.eml and logs "mail written".
func (d *DevSender) Send(ctx context.Context, m Message) error {
	now := nowFunc()
	raw, err := Compose(d.from, m, now)
	if err != nil {
		return err
	}
	r := make([]byte, 4)
	_, _ = rand.Read(r)
	path := filepath.Join(d.dir, now.UTC().Format("20060102T150405.000000000Z")+"-"+hex.EncodeToString(r)+".eml")
	if err := os.WriteFile(path, raw, 0o640); err != nil {
		return fmt.Errorf("mail: write %s: %w", path, err)
	}
	d.log.InfoContext(ctx, "mail written", "to", m.To, "subject", m.Subject, "path", path, "text", m.Text)
	return nil
}
