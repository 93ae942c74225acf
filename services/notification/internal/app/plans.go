package app

import (
	"context"
	"errors"
	"fmt"

	"bidradar/pkg/apperr"
	"bidradar/services/notification/internal/domain"
)

// errNotInPlan gives a delivery up at once: the user's tier no longer
// includes its channel (a plan that lapsed or was downgraded). The setting
// stays, so the channel works again on an upgrade.
var errNotInPlan = errors.New("the user's plan does not include this channel")

// inPlan checks that the user's tier includes the channel a delivery goes
// to: nil to send, errNotInPlan, or a lookup failure (retried like a send).
// Webhooks are in every tier; without the subscription service configured,
// no other channel beyond the bell is sent.
func (a *App) inPlan(ctx context.Context, d domain.Delivery) error {
	switch {
	case d.Channel == domain.ChannelWebhook:
		return nil
	case a.ch.Plans == nil:
		return errNotInPlan
	}
	plans, err := a.ch.Plans.Channels(ctx, []string{d.UserID})
	if err != nil {
		return err
	}
	if !plans[d.UserID].Allows(d.Channel) {
		return errNotInPlan
	}
	return nil
}

// checkTurnsOn refuses settings that turn on a channel the user's tier does
// not include (403 upgrade_required); keeping one on that a lapsed tier
// had is allowed (it stays silent, see planGate).
func (a *App) checkTurnsOn(ctx context.Context, userID string, s domain.Settings) error {
	m, err := a.store.SettingsOf(ctx, []string{userID})
	if err != nil {
		return err
	}
	on := s.TurnsOn(m[userID])
	if len(on) == 0 {
		return nil
	}
	if a.ch.Plans == nil {
		return apperr.New(apperr.Unavailable, "subscription-unavailable", "Service is currently unavailable. Please try again later.")
	}
	plans, err := a.ch.Plans.Channels(ctx, []string{userID})
	if err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "subscription-unavailable", "Service is currently unavailable. Please try again later.")
	}
	p := plans[userID]
	for _, ch := range on {
		if !p.Allows(ch) {
			name := map[string]string{domain.ChannelEmail: "การแจ้งเตือนทางอีเมล", domain.ChannelLine: "การแจ้งเตือนผ่าน LINE"}[ch]
			return &apperr.Error{Kind: domain.ErrUpgradeRequired.Kind, Slug: domain.ErrUpgradeRequired.Slug,
				Message: fmt.Sprintf("Upgrade required: แพ็กเกจ%s ไม่มี%s กรุณาอัปเกรดแพ็กเกจ", p.TierLabel, name)}
		}
	}
	return nil
}

// digestAllowed keeps the users whose tier includes e-mail.
func (a *App) digestAllowed(ctx context.Context, users []string) (map[string]bool, error) {
	out := map[string]bool{}
	if a.ch.Plans == nil || len(users) == 0 {
		return out, nil
	}
	plans, err := a.ch.Plans.Channels(ctx, users)
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		out[u] = plans[u].Email
	}
	return out, nil
}
