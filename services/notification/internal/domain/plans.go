package domain

import (
	"context"
	"errors"

	"bidradar/pkg/apperr"
)

// PlanChannels are the channels beyond the bell a user's tier includes,
// as the subscription service's tier table says (its features
// email_alerts and line_alerts). The bell is in every tier; outgoing
// webhooks are not sold by tier.
type PlanChannels struct {
	TierLabel   string
	Email, Line bool
}

// Allows reports whether the tier includes channel.
func (p PlanChannels) Allows(channel string) bool {
	switch channel {
	case ChannelEmail:
		return p.Email
	case ChannelLine:
		return p.Line
	}
	return true
}

// Plans reads the tier in force of users (missing users: free); it
// returns ErrPlansUnavailable when the subscription service gives no
// answer.
type Plans interface {
	Channels(ctx context.Context, userIDs []string) (map[string]PlanChannels, error)
}

// ErrPlansUnavailable reports that the subscription service did not answer.
var ErrPlansUnavailable = errors.New("subscription service unavailable")

// ErrUpgradeRequired refuses to turn on a channel the user's tier does not
// include.
var ErrUpgradeRequired = apperr.New(apperr.PermissionDenied, "upgrade_required", "Your plan does not include this channel")

// wantsEmail: e-mail alerts of either kind (instant or the daily digest).
func (s Settings) wantsEmail() bool { return s.EmailEnabled && s.EmailDigest != "off" }

// TurnsOn lists the channels beyond the bell that s turns on and old had
// off. Leaving a channel as it was is not turning it on: after a downgrade
// the user may still change everything else (the channel then stays off
// in fact, see Channels).
func (s Settings) TurnsOn(old Settings) []string {
	var out []string
	if s.wantsEmail() && !old.wantsEmail() {
		out = append(out, ChannelEmail)
	}
	if s.LineEnabled && !old.LineEnabled {
		out = append(out, ChannelLine)
	}
	return out
}
