package app

import (
	"context"
	"errors"
	"strings"

	"bidradar/services/auth/internal/domain"
)

// The account's self-service: the devices signed in, the profile, deleting
// the account (Thailand's PDPA: the right to erasure) and contact-us.

type deviceKey struct{}

// WithDevice records the client's User-Agent for the session a use case may
// start, so the owner can tell their sessions apart later.
func WithDevice(ctx context.Context, userAgent string) context.Context {
	if len(userAgent) > 512 {
		userAgent = userAgent[:512]
	}
	return context.WithValue(ctx, deviceKey{}, userAgent)
}

func deviceFrom(ctx context.Context) string {
	s, _ := ctx.Value(deviceKey{}).(string)
	return s
}

// SessionView is one of the user's sessions; Current marks the caller's own.
type SessionView struct {
	domain.SessionInfo
	Current bool
}

// ListSessionsHandler lists the signed-in user's active sessions.
type ListSessionsHandler struct{ c *core }

// Handle runs the use case.
func (h ListSessionsHandler) Handle(ctx context.Context, userID, currentFamily string) ([]SessionView, error) {
	list, err := h.c.store.ListSessions(ctx, userID, h.c.now())
	if err != nil {
		return nil, err
	}
	out := make([]SessionView, len(list))
	for i, s := range list {
		out[i] = SessionView{SessionInfo: s, Current: s.ID == currentFamily}
	}
	return out, nil
}

// EndSessionHandler signs one of the user's sessions out (their own only).
type EndSessionHandler struct{ c *core }

// Handle runs the use case.
func (h EndSessionHandler) Handle(ctx context.Context, userID, familyID string) error {
	familyID = strings.TrimSpace(familyID)
	if familyID == "" {
		return domain.ErrSessionIDBad
	}
	return h.c.store.EndSession(ctx, userID, familyID, h.c.now())
}

// EndAllSessionsHandler signs the user out everywhere; with keepCurrent the
// caller's own session stays. The owner is told by mail.
type EndAllSessionsHandler struct{ c *core }

// Handle runs the use case and answers how many sessions ended.
func (h EndAllSessionsHandler) Handle(ctx context.Context, userID, currentFamily string, keepCurrent bool) (int, error) {
	keep := ""
	if keepCurrent {
		keep = currentFamily
	}
	n, err := h.c.store.EndSessions(ctx, userID, keep, h.c.now())
	if err != nil {
		return 0, err
	}
	if n > 0 {
		if u, err := h.c.store.UserByID(ctx, userID); err == nil && u.Email != "" {
			h.c.notify(ctx, securityNoticeMail(u.Email, u.Name, signedOutEverywhereNotice))
		}
	}
	return n, nil
}

// UpdateProfile changes the display name and, when Picture is set, the
// picture ("" removes it).
type UpdateProfile struct {
	UserID  string
	Name    string
	Picture *string
}

// UpdateProfileHandler validates and stores the profile.
type UpdateProfileHandler struct{ c *core }

// Handle runs the use case.
func (h UpdateProfileHandler) Handle(ctx context.Context, cmd UpdateProfile) (domain.User, error) {
	name := domain.NormalizeName(cmd.Name)
	if err := domain.ValidateName(name); err != nil {
		return domain.User{}, err
	}
	if cmd.Picture != nil {
		if err := domain.ValidatePicture(*cmd.Picture); err != nil {
			return domain.User{}, err
		}
	}
	return h.c.store.UpdateProfile(ctx, cmd.UserID, name, cmd.Picture, h.c.now())
}

// RequestAccountDeletionHandler e-mails the code that confirms a deletion.
type RequestAccountDeletionHandler struct{ c *core }

// Handle runs the use case.
func (h RequestAccountDeletionHandler) Handle(ctx context.Context, userID string) (email string, err error) {
	u, err := h.c.store.UserByID(ctx, userID)
	if err != nil {
		return "", err
	}
	if u.Email == "" {
		return "", domain.ErrDeleteNoEmail
	}
	if err := h.c.issueCode(ctx, codeRequest{Purpose: domain.PurposeAccountDelete, Email: u.Email, Binding: u.ID,
		Delivery: deliverCode, Name: u.Name}); err != nil {
		return "", err
	}
	return u.Email, nil
}

// DeleteAccountHandler erases the account with the e-mailed code: personal
// data goes, every session ends, and auth.v1.user.deactivated tells every
// other service to erase what it holds (payment records stay, as the
// Revenue Code requires).
type DeleteAccountHandler struct{ c *core }

// DeleteAccountMessage is the success answer.
const DeleteAccountMessage = "Your account has been deleted."

// Handle runs the use case.
func (h DeleteAccountHandler) Handle(ctx context.Context, userID, otp string) (string, error) {
	otp = strings.TrimSpace(otp)
	if !domain.ValidOTPFormat(otp) {
		return "", domain.ErrInvalidOTPFormat
	}
	u, err := h.c.store.UserByID(ctx, userID)
	if err != nil {
		return "", err
	}
	code, err := h.c.verifyCode(ctx, domain.PurposeAccountDelete, u.Email, u.ID, otp)
	if err != nil {
		return "", err
	}
	now := h.c.now()
	ev := domain.UserDeactivated{EventID: newID(), OccurredAt: now, UserID: u.ID}
	if err := h.c.store.DeleteAccount(ctx, u.ID, code.ID, ev, now); err != nil {
		return "", err
	}
	h.c.notify(ctx, securityNoticeMail(u.Email, u.Name, accountDeletedNotice))
	return DeleteAccountMessage, nil
}

// SubmitContactHandler stores a contact-us message and mails it to support.
type SubmitContactHandler struct{ c *core }

// ContactMessage is the success answer.
const ContactMessage = "Thank you. We have received your message."

// Handle runs the use case.
func (h SubmitContactHandler) Handle(ctx context.Context, userID, topic, message string) (string, error) {
	topic, message, err := domain.NormalizeContact(topic, message)
	if err != nil {
		return "", err
	}
	u, err := h.c.store.UserByID(ctx, userID)
	if err != nil {
		return "", err
	}
	m := domain.ContactMessage{UserID: u.ID, Email: u.Email, Topic: topic, Message: message, CreatedAt: h.c.now()}
	if err := h.c.store.SaveContact(ctx, m); err != nil {
		return "", err
	}
	if h.c.supportEmail != "" {
		h.c.notify(ctx, contactMail(h.c.supportEmail, u, m))
	} else {
		h.c.log.InfoContext(ctx, "contact message stored; SUPPORT_EMAIL unset, not mailed", "user_id", u.ID)
	}
	return ContactMessage, nil
}

// RequestEmailChange asks to move the account to NewEmail.
type RequestEmailChange struct {
	UserID, NewEmail, CurrentPassword string
}

// RequestEmailChangeHandler checks the current password (accounts made
// through LINE have none: the code to the new address is their proof) and
// e-mails a code to the new address. An address another account already
// has gets no code and the same answer, so the form cannot probe accounts;
// it counts against the account's few addresses an hour all the same.
type RequestEmailChangeHandler struct{ c *core }

// Handle runs the use case and answers the normalised new address.
func (h RequestEmailChangeHandler) Handle(ctx context.Context, cmd RequestEmailChange) (string, error) {
	email := domain.NormalizeEmail(cmd.NewEmail)
	if err := domain.ValidateEmail(email); err != nil {
		return "", err
	}
	u, err := h.c.store.UserByID(ctx, cmd.UserID)
	if err != nil {
		return "", err
	}
	if email == u.Email {
		return "", domain.ErrEmailUnchanged
	}
	if u.HasPassword() {
		if err := h.c.checkCurrentPassword(ctx, u, cmd.CurrentPassword); err != nil {
			return "", err
		}
	}
	delivery := deliverCode
	if _, err := h.c.store.UserByEmail(ctx, email); err == nil {
		delivery = deliverNothing
	} else if !errors.Is(err, domain.ErrUserNotFound) {
		return "", err
	}
	if err := h.c.issueCode(ctx, codeRequest{Purpose: domain.PurposeEmailChange, Email: email, Binding: u.ID,
		Delivery: delivery, Name: u.Name, Owner: u.ID}); err != nil {
		return "", err
	}
	return email, nil
}

// ConfirmEmailChangeHandler moves the account to the new address with the
// code sent there, publishes auth.v1.user.email_changed (services keeping
// the address follow it) and tells the old address. Like a password change
// it ends every session of the account, the caller's too: the caller gets a
// new one whose access token names the new address, so what follows the
// address (operator rights, ADMIN_EMAILS) changes at once, not at the next
// refresh of a token that still names the old one.
type ConfirmEmailChangeHandler struct{ c *core }

// ConfirmEmailChange is the change and the caller's session (its provider
// carries over to the new one).
type ConfirmEmailChange struct {
	UserID, NewEmail, OTP string
	Provider              domain.Provider
}

// Handle runs the use case.
func (h ConfirmEmailChangeHandler) Handle(ctx context.Context, cmd ConfirmEmailChange) (Session, error) {
	email, otp, err := checkEmailAndOTP(cmd.NewEmail, cmd.OTP)
	if err != nil {
		return Session{}, err
	}
	old, err := h.c.store.UserByID(ctx, cmd.UserID)
	if err != nil {
		return Session{}, err
	}
	code, err := h.c.verifyCode(ctx, domain.PurposeEmailChange, email, old.ID, otp)
	if err != nil {
		return Session{}, err
	}
	now := h.c.now()
	ev := domain.UserEmailChanged{EventID: newID(), OccurredAt: now, UserID: old.ID, Email: email}
	provider := cmd.Provider
	if provider != domain.ProviderLine {
		provider = domain.ProviderPassword
	}
	refresh := domain.NewRefreshToken()
	u, fam, err := h.c.store.SetEmail(ctx, old.ID, email, code.ID, ev, domain.NewSession{
		FamilyID: newID(), UserID: old.ID, Provider: provider, TokenHash: domain.HashToken(refresh),
		Now: now, Device: deviceFrom(ctx),
	})
	if errors.Is(err, domain.ErrEmailTaken) {
		return Session{}, domain.ErrInvalidCode
	} else if err != nil {
		return Session{}, err
	}
	if old.Email != "" {
		h.c.notify(ctx, securityNoticeMail(old.Email, old.Name, emailChangedNotice(email)))
	}
	return h.c.sessionFor(u, fam, refresh, now)
}
