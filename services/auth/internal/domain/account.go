package domain

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	_ "image/jpeg" // DecodeConfig of uploaded pictures
	_ "image/png"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"bidradar/pkg/apperr"
	"bidradar/pkg/freetext"
)

// PurposeAccountDelete is the code that confirms an account deletion.
const PurposeAccountDelete Purpose = "account_delete"

// PurposeEmailChange is the code, sent to the new address, that confirms an
// e-mail change.
const PurposeEmailChange Purpose = "email_change"

// EmailChangeAddressesPerHour bounds the different new addresses one account
// may ask codes for in an hour: the form must not mail anyone we are told to.
const EmailChangeAddressesPerHour = 5

// ErrEmailChangeTooManyBase is the 429 of one address too many.
var ErrEmailChangeTooManyBase = apperr.New(apperr.ResourceExhausted, "email-change-too-many",
	"Codes were sent to several new addresses in the last hour. Please try again later.")

// CheckEmailChangeAddresses applies EmailChangeAddressesPerHour at now:
// recent holds, for each address the account asked a code for, when it last
// did. Asking again for one of them is the resend throttle's business; a new
// one waits until the oldest of EmailChangeAddressesPerHour others is an
// hour old.
func CheckEmailChangeAddresses(recent map[string]time.Time, email string, now time.Time) error {
	var times []time.Time
	for addr, at := range recent {
		if addr == email {
			return nil
		}
		if now.Sub(at) < time.Hour {
			times = append(times, at)
		}
	}
	if len(times) < EmailChangeAddressesPerHour {
		return nil
	}
	slices.SortFunc(times, func(a, b time.Time) int { return b.Compare(a) })
	wait := times[EmailChangeAddressesPerHour-1].Add(time.Hour).Sub(now)
	return &RetryError{Err: ErrEmailChangeTooManyBase, RetryAfter: max(wait, time.Second)}
}

// Profile pictures are uploaded as data URLs the app has already shrunk; the
// limits keep a row small and the request under the service's 64 KiB bound.
const (
	PictureMaxBytes     = 40 << 10
	PictureMaxDimension = 1024
)

// Contact-us limits: the text, and how many messages a user may send an
// hour (each is mailed to support).
const (
	ContactTopicMax   = 100
	ContactMessageMax = 4000
	ContactPerHour    = 5
)

// Errors of the account's self-service.
var (
	ErrPictureInvalid  = apperr.New(apperr.Validation, "picture-invalid", "The picture must be a JPEG or PNG image of at most 40 KB and 1024×1024 pixels")
	ErrSessionNotFound = apperr.New(apperr.NotFound, "session-not-found", "Session not found")
	ErrSessionIDBad    = apperr.New(apperr.InvalidArgument, "session-id-invalid", "session_id must be a valid id")
	ErrContactTopic    = apperr.New(apperr.Validation, "contact-topic-invalid", "topic must be 1 to 100 characters without control characters")
	ErrContactMessage  = apperr.New(apperr.Validation, "contact-message-invalid", "message must be 1 to 4000 characters without control characters")
	ErrDeleteNoEmail   = apperr.New(apperr.FailedPrecondition, "delete-needs-email", "The account has no e-mail address to send a confirmation code to")
	ErrEmailUnchanged  = apperr.New(apperr.Validation, "email-unchanged", "The new e-mail is the same as the current one")
	ErrContactTooMany  = apperr.New(apperr.ResourceExhausted, "contact-too-many", "You have sent several messages in the last hour. Please try again later.")
)

// SessionInfo is one signed-in device of a user.
type SessionInfo struct {
	ID         string
	Provider   Provider
	Device     string
	CreatedAt  time.Time
	LastUsedAt time.Time
	ExpiresAt  time.Time
}

// UserDeactivated is recorded when an account is deleted: every service
// erases or anonymises what it holds of the user.
type UserDeactivated struct {
	EventID    string
	OccurredAt time.Time
	UserID     string
}

// UserEmailChanged is recorded when a user moves to a new e-mail address:
// services that keep a copy of the address (receipts, reminders) update it.
type UserEmailChanged struct {
	EventID    string
	OccurredAt time.Time
	UserID     string
	Email      string
}

// ContactMessage is a message to support.
type ContactMessage struct {
	UserID, Email, Topic, Message string
	CreatedAt                     time.Time
}

// AccountStore is the persistence of the account's self-service.
type AccountStore interface {
	// ListSessions returns the user's active sessions, the most recently used first.
	ListSessions(ctx context.Context, userID string, now time.Time) ([]SessionInfo, error)
	// EndSessions ends the user's active sessions except keepFamilyID
	// (empty: all) and publishes auth.v1.session.ended; it returns how many.
	EndSessions(ctx context.Context, userID, keepFamilyID string, now time.Time) (int, error)
	// EndSession ends one of the user's sessions (ErrSessionNotFound when it
	// is not theirs or no longer active).
	EndSession(ctx context.Context, userID, familyID string, now time.Time) error
	// UpdateProfile sets the name and, when picture is non-nil, the picture.
	UpdateProfile(ctx context.Context, userID, name string, picture *string, now time.Time) (User, error)
	// DeleteAccount consumes the confirmation code, erases the user's
	// personal data, ends every session, drops queued mail to the user and
	// records ev, in one transaction.
	DeleteAccount(ctx context.Context, userID string, codeID int64, ev UserDeactivated, now time.Time) error
	// SaveContact stores a contact-us message.
	SaveContact(ctx context.Context, m ContactMessage) error
	// SetEmail consumes the confirmation code, changes the user's e-mail
	// (ErrEmailTaken when another account has it meanwhile), records ev
	// (auth.v1.user.email_changed), ends every session of the user and
	// starts ns for the caller, in one transaction.
	SetEmail(ctx context.Context, userID, email string, codeID int64, ev UserEmailChanged, ns NewSession) (User, Family, error)
}

// ValidatePicture accepts "" (no picture) or a data URL of a JPEG or PNG
// image (the app re-encodes whatever the user picks as a small JPEG) whose bytes really are that type, within the limits.
func ValidatePicture(s string) error {
	if s == "" {
		return nil
	}
	meta, data, ok := strings.Cut(s, ",")
	if !ok {
		return ErrPictureInvalid
	}
	var declared string
	switch meta {
	case "data:image/jpeg;base64":
		declared = "jpeg"
	case "data:image/png;base64":
		declared = "png"
	default:
		return ErrPictureInvalid
	}
	if base64.StdEncoding.DecodedLen(len(data)) > PictureMaxBytes+3 {
		return ErrPictureInvalid
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(raw) == 0 || len(raw) > PictureMaxBytes {
		return ErrPictureInvalid
	}
	// The decoder is chosen by the bytes' signature, so the format it names
	// is what the bytes really are, whatever the data URL declared.
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil || format != declared || cfg.Width < 1 || cfg.Height < 1 || cfg.Width > PictureMaxDimension || cfg.Height > PictureMaxDimension {
		return ErrPictureInvalid
	}
	return nil
}

// NormalizeContact trims both fields and checks their lengths and characters
// (line breaks are allowed in the message).
func NormalizeContact(topic, message string) (string, string, error) {
	topic = strings.Join(strings.Fields(topic), " ")
	message = strings.TrimSpace(strings.ReplaceAll(message, "\r\n", "\n"))
	if !plainText(topic, false) || topic == "" || utf8.RuneCountInString(topic) > ContactTopicMax {
		return "", "", ErrContactTopic
	}
	if !plainText(message, true) || message == "" || utf8.RuneCountInString(message) > ContactMessageMax {
		return "", "", ErrContactMessage
	}
	return topic, message, nil
}

// plainText is the product's one check of typed text (pkg/freetext): no
// control characters, no bidirectional overrides; newlines where allowed.
func plainText(s string, newlines bool) bool {
	return freetext.Valid(s, freetext.Lines(newlines))
}

// DescribeDevice turns a User-Agent into a short label such as
// "Chrome · Windows", so a user can tell their sessions apart.
func DescribeDevice(ua string) string {
	if ua == "" {
		return ""
	}
	browser := ""
	for _, b := range []struct{ token, name string }{
		{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"Line/", "LINE"}, {"SamsungBrowser/", "Samsung Internet"},
		{"Firefox/", "Firefox"}, {"Chrome/", "Chrome"}, {"CriOS/", "Chrome"}, {"Safari/", "Safari"},
	} {
		if strings.Contains(ua, b.token) {
			browser = b.name
			break
		}
	}
	system := ""
	for _, o := range []struct{ token, name string }{
		{"Android", "Android"}, {"iPhone", "iPhone"}, {"iPad", "iPad"}, {"Windows", "Windows"},
		{"Mac OS X", "macOS"}, {"CrOS", "ChromeOS"}, {"Linux", "Linux"},
	} {
		if strings.Contains(ua, o.token) {
			system = o.name
			break
		}
	}
	switch {
	case browser != "" && system != "":
		return browser + " · " + system
	case browser != "":
		return browser
	case system != "":
		return system
	}
	// A non-browser client: its product token, bounded.
	name, _, _ := strings.Cut(ua, " ")
	if r := []rune(name); len(r) > 40 {
		name = string(r[:40])
	}
	return name
}
