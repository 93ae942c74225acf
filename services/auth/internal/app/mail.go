package app

import (
	"bytes"
	"html/template"
	"strings"

	"bidradar/services/auth/internal/domain"
)

// Every message is bilingual, Thai first, in plain text and simple HTML.

type codeCopy struct {
	subjectTH, subjectEN string
	leadTH, leadEN       string
}

var codeCopies = map[domain.Purpose]codeCopy{
	domain.PurposeRegistration: {
		subjectTH: "รหัสยืนยันการสมัครสมาชิก BidRadar", subjectEN: "Your BidRadar verification code",
		leadTH: "รหัสยืนยันการสมัครสมาชิก BidRadar ของคุณคือ", leadEN: "Your BidRadar verification code is",
	},
	domain.PurposeLogin: {
		subjectTH: "รหัสเข้าสู่ระบบ BidRadar", subjectEN: "Your BidRadar sign-in code",
		leadTH: "รหัสยืนยันการเข้าสู่ระบบ BidRadar ของคุณคือ", leadEN: "Your BidRadar sign-in code is",
	},
	domain.PurposePasswordReset: {
		subjectTH: "รหัสตั้งรหัสผ่านใหม่ BidRadar", subjectEN: "Your BidRadar password reset code",
		leadTH: "รหัสสำหรับตั้งรหัสผ่านใหม่ของคุณคือ", leadEN: "Your password reset code is",
	},
	domain.PurposeAccountDelete: {
		subjectTH: "รหัสยืนยันการลบบัญชี BidRadar", subjectEN: "Your BidRadar account deletion code",
		leadTH: "มีคำขอลบบัญชี BidRadar ของคุณ หากเป็นคุณ ให้ใช้รหัสนี้เพื่อยืนยันการลบบัญชีและข้อมูลส่วนบุคคลทั้งหมด:",
		leadEN: "Someone asked to delete your BidRadar account. If it was you, confirm with this code:",
	},
	domain.PurposeEmailChange: {
		subjectTH: "รหัสยืนยันอีเมลใหม่ BidRadar", subjectEN: "Confirm your new BidRadar e-mail",
		leadTH: "รหัสสำหรับยืนยันการเปลี่ยนอีเมลของบัญชี BidRadar มาใช้อีเมลนี้คือ", leadEN: "Your code to move your BidRadar account to this e-mail is",
	},
	domain.PurposeLineLink: {
		subjectTH: "รหัสเชื่อมบัญชี LINE กับ BidRadar", subjectEN: "Your BidRadar LINE link code",
		leadTH: "รหัสสำหรับเชื่อมบัญชี LINE กับ BidRadar ของคุณคือ", leadEN: "Your code to link LINE with BidRadar is",
	},
}

var codeHTML = template.Must(template.New("code").Parse(`<!doctype html>
<html lang="th"><body style="font-family:sans-serif;line-height:1.5;color:#222">
<p>{{.HelloTH}}</p>
<p>{{.LeadTH}}</p>
<p style="font-size:28px;font-weight:bold;letter-spacing:6px">{{.Code}}</p>
<p>รหัสนี้ใช้ได้ภายใน 5 นาที และใช้ได้เพียงครั้งเดียว หากคุณไม่ได้ทำรายการนี้ โปรดเพิกเฉยต่ออีเมลฉบับนี้</p>
<hr>
<p>{{.HelloEN}}</p>
<p>{{.LeadEN}} <strong>{{.Code}}</strong></p>
<p>This code is valid for 5 minutes and can be used once. If you did not request it, you can ignore this e-mail.</p>
<p style="color:#888">BidRadar</p>
</body></html>
`))

func codeMail(p domain.Purpose, to, name, code string) domain.Mail {
	cp, ok := codeCopies[p]
	if !ok {
		cp = codeCopies[domain.PurposeRegistration]
	}
	helloTH, helloEN := greeting(name)
	var text strings.Builder
	text.WriteString(helloTH + "\n\n")
	text.WriteString(cp.leadTH + "\n\n    " + code + "\n\n")
	text.WriteString("รหัสนี้ใช้ได้ภายใน 5 นาที และใช้ได้เพียงครั้งเดียว หากคุณไม่ได้ทำรายการนี้ โปรดเพิกเฉยต่ออีเมลฉบับนี้\n\n")
	text.WriteString("----\n\n")
	text.WriteString(helloEN + "\n\n")
	text.WriteString(cp.leadEN + "\n\n    " + code + "\n\n")
	text.WriteString("This code is valid for 5 minutes and can be used once. If you did not request it, you can ignore this e-mail.\n\nBidRadar\n")
	var html bytes.Buffer
	_ = codeHTML.Execute(&html, map[string]string{
		"HelloTH": helloTH, "HelloEN": helloEN, "LeadTH": cp.leadTH, "LeadEN": cp.leadEN, "Code": code,
	})
	return domain.Mail{To: to, Subject: cp.subjectTH + " / " + cp.subjectEN, Text: text.String(), HTML: html.String()}
}

var noticeHTML = template.Must(template.New("notice").Parse(`<!doctype html>
<html lang="th"><body style="font-family:sans-serif;line-height:1.5;color:#222">
<p>{{.HelloTH}}</p>
<p>มีผู้พยายามสมัครสมาชิก BidRadar ด้วยอีเมลนี้ ซึ่งมีบัญชีอยู่แล้ว หากเป็นคุณ โปรดเข้าสู่ระบบ หรือใช้เมนูลืมรหัสผ่าน หากไม่ใช่คุณ ไม่ต้องดำเนินการใด ๆ บัญชีของคุณยังปลอดภัย</p>
<hr>
<p>{{.HelloEN}}</p>
<p>Someone tried to sign up for BidRadar with this e-mail address, which already has an account. If it was you, please log in or use "Forgot password". If not, no action is needed: your account is safe.</p>
<p style="color:#888">BidRadar</p>
</body></html>
`))

func registrationNoticeMail(to, name string) domain.Mail {
	helloTH, helloEN := greeting(name)
	text := helloTH + "\n\n" +
		"มีผู้พยายามสมัครสมาชิก BidRadar ด้วยอีเมลนี้ ซึ่งมีบัญชีอยู่แล้ว หากเป็นคุณ โปรดเข้าสู่ระบบ หรือใช้เมนูลืมรหัสผ่าน หากไม่ใช่คุณ ไม่ต้องดำเนินการใด ๆ บัญชีของคุณยังปลอดภัย\n\n" +
		"----\n\n" + helloEN + "\n\n" +
		"Someone tried to sign up for BidRadar with this e-mail address, which already has an account. " +
		"If it was you, please log in or use \"Forgot password\". If not, no action is needed: your account is safe.\n\nBidRadar\n"
	var html bytes.Buffer
	_ = noticeHTML.Execute(&html, map[string]string{"HelloTH": helloTH, "HelloEN": helloEN})
	return domain.Mail{
		To:      to,
		Subject: "มีการพยายามสมัครสมาชิกด้วยอีเมลของคุณ / Sign-up attempt with your BidRadar e-mail",
		Text:    text, HTML: html.String(),
	}
}

// securityNotice says what changed on the account, in Thai and English.
type securityNotice struct{ subjectTH, subjectEN, whatTH, whatEN string }

var passwordChangedNotice = securityNotice{
	subjectTH: "รหัสผ่าน BidRadar ของคุณถูกเปลี่ยน", subjectEN: "Your BidRadar password was changed",
	whatTH: "รหัสผ่านของบัญชี BidRadar ของคุณเพิ่งถูกเปลี่ยน และอุปกรณ์อื่นที่เข้าสู่ระบบไว้ถูกออกจากระบบแล้ว",
	whatEN: "The password of your BidRadar account was just changed, and your other devices were signed out.",
}

var signedOutEverywhereNotice = securityNotice{
	subjectTH: "บัญชี BidRadar ของคุณออกจากระบบทุกอุปกรณ์แล้ว", subjectEN: "You were signed out of BidRadar on your devices",
	whatTH: "มีการสั่งออกจากระบบทุกอุปกรณ์สำหรับบัญชี BidRadar ของคุณ", whatEN: "Your BidRadar account was just signed out on all its devices.",
}

var lineLinkedNotice = securityNotice{
	subjectTH: "เชื่อมบัญชี LINE กับ BidRadar แล้ว", subjectEN: "LINE was linked to your BidRadar account",
	whatTH: "บัญชี LINE ถูกเชื่อมกับบัญชี BidRadar ของคุณ และใช้เข้าสู่ระบบได้แล้ว", whatEN: "A LINE account was linked to your BidRadar account and can now sign in to it.",
}

// emailChangedNotice goes to the old address: its owner learns where the
// account moved.
func emailChangedNotice(newEmail string) securityNotice {
	return securityNotice{
		subjectTH: "อีเมลของบัญชี BidRadar ถูกเปลี่ยน", subjectEN: "Your BidRadar e-mail was changed",
		whatTH: "อีเมลของบัญชี BidRadar ของคุณถูกเปลี่ยนเป็น " + newEmail + " อีเมลนี้จะไม่ได้รับข้อความจากบัญชีนี้อีก",
		whatEN: "The e-mail of your BidRadar account was changed to " + newEmail + "; this address will no longer receive its messages.",
	}
}

var accountDeletedNotice = securityNotice{
	subjectTH: "บัญชี BidRadar ของคุณถูกลบแล้ว", subjectEN: "Your BidRadar account was deleted",
	whatTH: "บัญชี BidRadar ของคุณและข้อมูลส่วนบุคคลถูกลบแล้ว (เอกสารการชำระเงินเก็บไว้ตามที่กฎหมายภาษีกำหนด)",
	whatEN: "Your BidRadar account and its personal data were deleted (payment records are kept as tax law requires).",
}

// contactMail forwards a contact-us message to support; replies go to the user.
func contactMail(to string, u domain.User, m domain.ContactMessage) domain.Mail {
	text := "ข้อความจากหน้า ติดต่อเรา / Contact-us message\n\n" +
		"ผู้ใช้ / User: " + u.Username + " <" + u.Email + "> (" + u.ID + ")\n" +
		"เรื่อง / Topic: " + m.Topic + "\n\n" + m.Message + "\n"
	return domain.Mail{To: to, Subject: "[BidRadar ติดต่อเรา] " + m.Topic, Text: text}
}

func twoStepNotice(enabled bool) securityNotice {
	if enabled {
		return securityNotice{
			subjectTH: "เปิดการยืนยันตัวตนสองขั้นตอนแล้ว", subjectEN: "Two-step verification turned on",
			whatTH: "การยืนยันตัวตนสองขั้นตอนของบัญชี BidRadar ของคุณถูกเปิดใช้งาน", whatEN: "Two-step verification was turned on for your BidRadar account.",
		}
	}
	return securityNotice{
		subjectTH: "ปิดการยืนยันตัวตนสองขั้นตอนแล้ว", subjectEN: "Two-step verification turned off",
		whatTH: "การยืนยันตัวตนสองขั้นตอนของบัญชี BidRadar ของคุณถูกปิด", whatEN: "Two-step verification was turned off for your BidRadar account.",
	}
}

var securityHTML = template.Must(template.New("security").Parse(`<!doctype html>
<html lang="th"><body style="font-family:sans-serif;line-height:1.5;color:#222">
<p>{{.HelloTH}}</p><p>{{.WhatTH}}</p>
<p>หากคุณไม่ได้ทำรายการนี้ โปรดตั้งรหัสผ่านใหม่ทันทีผ่านเมนูลืมรหัสผ่าน และติดต่อเรา</p>
<hr>
<p>{{.HelloEN}}</p><p>{{.WhatEN}}</p>
<p>If this was not you, reset your password now with "Forgot password" and contact us.</p>
<p style="color:#888">BidRadar</p>
</body></html>
`))

// securityNoticeMail tells the owner of a sensitive change to their account.
func securityNoticeMail(to, name string, n securityNotice) domain.Mail {
	helloTH, helloEN := greeting(name)
	text := helloTH + "\n\n" + n.whatTH + "\n\nหากคุณไม่ได้ทำรายการนี้ โปรดตั้งรหัสผ่านใหม่ทันทีผ่านเมนูลืมรหัสผ่าน และติดต่อเรา\n\n----\n\n" +
		helloEN + "\n\n" + n.whatEN + "\n\nIf this was not you, reset your password now with \"Forgot password\" and contact us.\n\nBidRadar\n"
	var html bytes.Buffer
	_ = securityHTML.Execute(&html, map[string]string{"HelloTH": helloTH, "HelloEN": helloEN, "WhatTH": n.whatTH, "WhatEN": n.whatEN})
	return domain.Mail{To: to, Subject: n.subjectTH + " / " + n.subjectEN, Text: text, HTML: html.String()}
}
