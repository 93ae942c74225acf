// Package linepush sends LINE Messaging API push messages (LINE Notify no
// longer exists). Every attempt of one message carries the same
// X-Line-Retry-Key: when a timed-out request had in fact been accepted,
// LINE answers the retry 409 and sends nothing twice.
package linepush

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// DefaultBase is LINE's API origin.
const DefaultBase = "https://api.line.me"

// Client implements domain.LinePusher.
type Client struct {
	base, token string
	http        *http.Client
}

// New returns a client with the channel access token; base "" is LINE's.
func New(base, token string) *Client {
	if base == "" {
		base = DefaultBase
	}
	return &Client{base: strings.TrimRight(base, "/"), token: token, http: &http.Client{Timeout: 10 * time.Second}}
}

type textMessage struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Push implements domain.LinePusher.
func (c *Client) Push(ctx context.Context, to, text, retryKey string) error {
	body, err := json.Marshal(map[string]any{"to": to, "messages": []textMessage{{Type: "text", Text: text}}})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/v2/bot/message/push", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("X-Line-Retry-Key", retryKey)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("line push: %w", err)
	}
	defer resp.Body.Close()
	detail, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	switch {
	case resp.StatusCode/100 == 2:
		return nil
	case resp.StatusCode == http.StatusConflict && resp.Header.Get("X-Line-Accepted-Request-Id") != "":
		return nil // an earlier attempt with this key was accepted
	}
	return fmt.Errorf("line push: HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(detail))
}
