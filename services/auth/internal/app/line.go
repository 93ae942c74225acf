package app

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"bidradar/services/auth/internal/domain"
)

// LINE Login flow limits.
const (
	LineStateTTL = 10 * time.Minute
	LinkTokenTTL = 15 * time.Minute
	// maxLineParam bounds code, state and link tokens from clients.
	maxLineParam = 512
)

// LINE statuses of LineCallbackResult.
const (
	LineStatusLoggedIn     = "logged_in"
	LineStatusLinked       = "linked"
	LineStatusLinkRequired = "link_required"
)

func randomToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// pkceChallenge is the S256 code challenge of a verifier (RFC 7636).
func pkceChallenge(verifier string) string {
	s := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(s[:])
}

// LoginOptions are the ways in the sign-in pages offer.
type LoginOptions struct {
	Line bool // LINE Login has a configured channel
}

// LoginOptionsHandler answers from configuration alone: cheap enough for
// every visit of the sign-in pages.
type LoginOptionsHandler struct{ c *core }

// Handle runs the query.
func (h LoginOptionsHandler) Handle() LoginOptions {
	return LoginOptions{Line: h.c.line.Configured()}
}

// LineAuthorize starts LINE Login.
type LineAuthorize struct {
	RedirectTo string
	// CallerUserID is the signed-in user, if any: the flow then links the
	// LINE identity to that user, and only that user can complete it.
	CallerUserID string
}

// LineAuthorizeResult is where to send the browser.
type LineAuthorizeResult struct {
	URL   string
	State string
}

// LineAuthorizeHandler creates state, nonce and a PKCE verifier, keeps them
// server-side for LineStateTTL and builds the authorize URL.
type LineAuthorizeHandler struct{ c *core }

// Handle runs the use case.
func (h LineAuthorizeHandler) Handle(ctx context.Context, cmd LineAuthorize) (LineAuthorizeResult, error) {
	if !h.c.line.Configured() {
		return LineAuthorizeResult{}, domain.ErrLineNotConfigured
	}
	redirect, err := domain.SafeRedirect(cmd.RedirectTo)
	if err != nil {
		return LineAuthorizeResult{}, err
	}
	state, nonce, verifier := randomToken(), randomToken(), randomToken()
	now := h.c.now()
	err = h.c.store.SaveLineState(ctx, domain.LineState{
		StateHash: domain.HashToken(state), Nonce: nonce, CodeVerifier: verifier, RedirectTo: redirect,
		UserID: cmd.CallerUserID, CreatedAt: now, ExpiresAt: now.Add(LineStateTTL),
	})
	if err != nil {
		return LineAuthorizeResult{}, err
	}
	return LineAuthorizeResult{URL: h.c.line.AuthorizeURL(state, nonce, pkceChallenge(verifier)), State: state}, nil
}

// LineCallback is LINE's redirect back to the app.
type LineCallback struct {
	Code, State, Error string
	CallerUserID       string
}

// LineCallbackResult is a session, a completed link, or a link request.
type LineCallbackResult struct {
	Status     string
	Message    string
	Session    Session // LineStatusLoggedIn
	User       domain.User
	LinkToken  string // LineStatusLinkRequired
	Identity   domain.LineIdentity
	RedirectTo string
}

// LineCallbackHandler consumes the state, exchanges the code with its PKCE
// verifier, verifies the ID token, and then: signs in the linked account;
// or, never merging by e-mail, answers link_required with a short-lived
// link token (for a user who started the flow while signed in, with their
// own address filled in: the e-mailed code is the re-authentication).
type LineCallbackHandler struct{ c *core }

// Handle runs the use case.
func (h LineCallbackHandler) Handle(ctx context.Context, cmd LineCallback) (LineCallbackResult, error) {
	if !h.c.line.Configured() {
		return LineCallbackResult{}, domain.ErrLineNotConfigured
	}
	if len(cmd.Code) > maxLineParam || len(cmd.State) > maxLineParam {
		return LineCallbackResult{}, domain.ErrFieldTooLong
	}
	now := h.c.now()
	if cmd.Error != "" {
		if cmd.State != "" {
			_, _ = h.c.store.TakeLineState(ctx, domain.HashToken(cmd.State), now)
		}
		return LineCallbackResult{}, domain.ErrLineCancelled
	}
	if cmd.Code == "" || cmd.State == "" {
		return LineCallbackResult{}, domain.ErrLineCodeRequired
	}
	st, err := h.c.store.TakeLineState(ctx, domain.HashToken(cmd.State), now)
	if err != nil {
		return LineCallbackResult{}, err
	}
	id, err := h.c.line.Authenticate(ctx, cmd.Code, st.CodeVerifier, st.Nonce)
	if err != nil {
		return LineCallbackResult{}, err
	}
	res := LineCallbackResult{Identity: id, RedirectTo: st.RedirectTo}

	if st.UserID != "" && st.UserID == cmd.CallerUserID {
		// Linking from a signed-in account needs a fresh e-mailed code like
		// any other link (a stolen session alone must not attach someone's
		// LINE to the account): link_required, the caller's address filled in.
		caller, err := h.c.store.UserByID(ctx, st.UserID)
		if err != nil {
			return LineCallbackResult{}, err
		}
		if owner, err := h.c.store.UserByLineID(ctx, id.LineID); err == nil {
			if owner.ID != caller.ID {
				return LineCallbackResult{}, domain.ErrLineLinkedOther
			}
			res.Status, res.Message, res.User = LineStatusLinked, "LINE account linked successfully.", caller
			return res, nil
		} else if !errors.Is(err, domain.ErrUserNotFound) {
			return LineCallbackResult{}, err
		}
		if caller.LineID != "" {
			return LineCallbackResult{}, domain.ErrUserHasOtherLine
		}
		res.Identity.Email = caller.Email
	}

	u, err := h.c.store.UserByLineID(ctx, id.LineID)
	switch {
	case err == nil:
		if !u.Active {
			return LineCallbackResult{}, domain.ErrAccountInactive
		}
		s, err := h.c.startSession(ctx, u, domain.ProviderLine, 0)
		if err != nil {
			return LineCallbackResult{}, err
		}
		res.Status, res.Message, res.Session, res.User = LineStatusLoggedIn, LoginSuccessMessage, s, u
		return res, nil
	case !errors.Is(err, domain.ErrUserNotFound):
		return LineCallbackResult{}, err
	}

	link := randomToken()
	if err := h.c.store.SaveLinkRequest(ctx, domain.LinkRequest{
		TokenHash: domain.HashToken(link), Identity: id, ExpiresAt: now.Add(LinkTokenTTL),
	}); err != nil {
		return LineCallbackResult{}, err
	}
	res.Status, res.LinkToken = LineStatusLinkRequired, link
	res.Message = "Please verify your email to link your LINE account."
	return res, nil
}

// LineLinkSendOTP e-mails a code to the address the LINE identity should be
// linked to.
type LineLinkSendOTP struct {
	LinkToken string
	Email     string
}

// LineLinkSendOTPHandler checks the link token and e-mails a code bound to
// it (purpose line_link). Any address may receive one: with no account, the
// verification creates one.
type LineLinkSendOTPHandler struct{ c *core }

// Handle runs the use case.
func (h LineLinkSendOTPHandler) Handle(ctx context.Context, cmd LineLinkSendOTP) (int, string, error) {
	email, err := checkEmail(cmd.Email)
	if err != nil {
		return 0, "", err
	}
	req, err := h.c.linkRequest(ctx, cmd.LinkToken)
	if err != nil {
		return 0, "", err
	}
	name := req.Identity.Name
	if err := h.c.issueCode(ctx, codeRequest{
		Purpose: domain.PurposeLineLink, Email: email, Binding: linkBinding(req), Name: name,
	}); err != nil {
		return 0, "", err
	}
	return expiresIn, LoginOTPSentMessage, nil
}

// LineLinkVerify links with the e-mailed code.
type LineLinkVerify struct {
	LinkToken string
	Email     string
	OTP       string
}

// LineLinkVerifyHandler verifies the code, then in one transaction uses up
// the code and the link token, links the identity to the e-mail's account
// (activating it: the e-mail is now proven) or creates an active account,
// and signs in with LINE as the provider.
type LineLinkVerifyHandler struct{ c *core }

// Handle runs the use case.
func (h LineLinkVerifyHandler) Handle(ctx context.Context, cmd LineLinkVerify) (Session, error) {
	email, otp, err := checkEmailAndOTP(cmd.Email, cmd.OTP)
	if err != nil {
		return Session{}, err
	}
	req, err := h.c.linkRequest(ctx, cmd.LinkToken)
	if err != nil {
		return Session{}, err
	}
	code, err := h.c.verifyCode(ctx, domain.PurposeLineLink, email, linkBinding(req), otp)
	if err != nil {
		return Session{}, err
	}
	now := h.c.now()
	name := domain.NormalizeName(req.Identity.Name)
	if domain.ValidateName(name) != nil {
		name = ""
	}
	seed := req.Identity.Name
	if at := strings.IndexByte(email, '@'); at > 0 {
		seed = email[:at]
	}
	refresh := domain.NewRefreshToken()
	var lastErr error
	for range 3 {
		c := domain.LineLinkCompletion{
			CodeID: code.ID, LinkHash: req.TokenHash, Email: email, Identity: req.Identity,
			NewUser: domain.User{
				ID: newID(), Username: domain.UsernameFromSeed(seed) + "-" + randomSuffix(), Email: email,
				Name: name, PictureURL: req.Identity.PictureURL, Active: true, CreatedAt: now, VerifiedAt: now,
			},
			Session:    domain.NewSession{FamilyID: newID(), Provider: domain.ProviderLine, TokenHash: domain.HashToken(refresh), Now: now, Device: deviceFrom(ctx)},
			Registered: domain.UserRegistered{EventID: uuid.NewString(), OccurredAt: now, Email: email, Name: name},
			Verified:   domain.UserVerified{EventID: uuid.NewString(), OccurredAt: now, Email: email},
		}
		c.Registered.Username = c.NewUser.Username
		u, fam, err := h.c.store.CompleteLineLink(ctx, c)
		if errors.Is(err, domain.ErrUsernameTaken) {
			lastErr = err
			continue
		}
		if err != nil {
			return Session{}, err
		}
		if u.ID != c.NewUser.ID && u.Email != "" {
			// An existing account gained a way in: its owner is told.
			h.c.notify(ctx, securityNoticeMail(u.Email, u.Name, lineLinkedNotice))
		}
		return h.c.sessionFor(u, fam, refresh, now)
	}
	return Session{}, lastErr
}

func (c *core) linkRequest(ctx context.Context, token string) (domain.LinkRequest, error) {
	token = strings.TrimSpace(token)
	if token == "" || len(token) > maxLineParam {
		return domain.LinkRequest{}, domain.ErrLinkTokenInvalid
	}
	return c.store.LinkRequest(ctx, domain.HashToken(token), c.now())
}

// linkBinding ties a line_link code to one link request.
func linkBinding(r domain.LinkRequest) string {
	return base64.RawURLEncoding.EncodeToString(r.TokenHash)
}

func randomSuffix() string {
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	const hexdigits = "0123456789abcdef"
	out := make([]byte, 0, 6)
	for _, x := range b {
		out = append(out, hexdigits[x>>4], hexdigits[x&15])
	}
	return string(out)
}
