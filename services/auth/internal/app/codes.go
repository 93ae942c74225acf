package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"bidradar/services/auth/internal/domain"
)

// delivery says what an issued code row turns into.
type delivery int

const (
	// deliverCode e-mails the code.
	deliverCode delivery = iota
	// deliverNothing records a dead row only: same throttle, no mail (an
	// unknown e-mail must look like a known one).
	deliverNothing
	// deliverNotice records a dead row and e-mails a notice instead of a
	// code (someone tried to register with an active account's e-mail).
	deliverNotice
)

type codeRequest struct {
	Purpose  domain.Purpose
	Email    string
	Binding  string
	AuthAt   time.Time
	Delivery delivery
	Name     string // greeting, optional
	Owner    string // the account asking, for the limit of its addresses (e-mail change)
}

// issueCode applies the resend throttle, stores a new code (invalidating
// older ones) and e-mails it. Codes are never logged.
func (c *core) issueCode(ctx context.Context, r codeRequest) error {
	now := c.now()
	var code string
	var sum []byte
	if r.Delivery == deliverCode {
		code = domain.NewOTP()
		sum = c.otp.Sum(r.Purpose, r.Email, r.Binding, code)
	}
	if _, err := c.store.IssueCode(ctx, domain.NewCode{Purpose: r.Purpose, Email: r.Email, HMAC: sum, AuthAt: r.AuthAt, Owner: r.Owner}, now); err != nil {
		return err
	}
	var m domain.Mail
	switch r.Delivery {
	case deliverCode:
		m = codeMail(r.Purpose, r.Email, r.Name, code)
	case deliverNotice:
		m = registrationNoticeMail(r.Email, r.Name)
	default:
		return nil
	}
	if err := c.mailer.Send(ctx, m); err != nil {
		c.log.ErrorContext(ctx, "send mail", "purpose", string(r.Purpose), "err", err)
		return ErrMailUnavailable
	}
	return nil
}

// ErrMailUnavailable is returned when the mail server refused a message.
var ErrMailUnavailable = domain.ErrMailUnavailable

// verifyCode checks a submitted code for (purpose, e-mail, binding): the
// daily failure cap first, then an atomic attempt increment, then the
// expiry, then a constant-time comparison. It returns the code so that the
// caller can consume it in the transaction of its effect.
func (c *core) verifyCode(ctx context.Context, p domain.Purpose, email, binding, submitted string) (domain.OTPCode, error) {
	now := c.now()
	fails, err := c.store.DailyFailures(ctx, p, email, now.Add(-24*time.Hour))
	if err != nil {
		return domain.OTPCode{}, err
	}
	if fails >= domain.OTPMaxDailyFailures {
		return domain.OTPCode{}, domain.ErrTooManyFailures
	}
	code, err := c.store.SubmitCode(ctx, p, email)
	if err != nil {
		return domain.OTPCode{}, err
	}
	verdict := code.Evaluate(now, c.otp.Sum(p, email, binding, submitted), c.otp)
	if verdict == domain.OTPWrong {
		if err := c.store.RecordFailure(ctx, code.ID, now); err != nil {
			return domain.OTPCode{}, err
		}
	}
	if err := verdict.Err(); err != nil {
		return domain.OTPCode{}, err
	}
	return code, nil
}

// verifyUserCode checks a code and loads the account it was sent to; a code
// whose account is gone reads as a wrong code.
func (c *core) verifyUserCode(ctx context.Context, p domain.Purpose, email, otp string) (domain.OTPCode, domain.User, error) {
	code, err := c.verifyCode(ctx, p, email, "", otp)
	if err != nil {
		return domain.OTPCode{}, domain.User{}, err
	}
	u, err := c.store.UserByEmail(ctx, email)
	if errors.Is(err, domain.ErrUserNotFound) {
		return domain.OTPCode{}, domain.User{}, domain.ErrInvalidCode
	}
	if err != nil {
		return domain.OTPCode{}, domain.User{}, err
	}
	return code, u, nil
}

// resendTooSoon reports whether err is the 60-second resend throttle.
func resendTooSoon(err error) bool {
	return errors.Is(err, domain.ErrResendTooSoonBase)
}

// expiresIn is the code lifetime announced to clients, in seconds.
var expiresIn = int(domain.OTPTTL / time.Second)

func greeting(name string) (th, en string) {
	if name == "" {
		return "สวัสดีค่ะ", "Hello,"
	}
	return fmt.Sprintf("สวัสดีคุณ %s", name), fmt.Sprintf("Hello %s,", name)
}
