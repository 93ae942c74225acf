package domain

import (
	"fmt"
	"html"
	"strings"
	"time"
)

// Mail is an e-mail decided by a use case and queued in its transaction.
type Mail struct {
	To, Subject, Text, HTML string
}

var thaiMonths = [...]string{"มกราคม", "กุมภาพันธ์", "มีนาคม", "เมษายน", "พฤษภาคม", "มิถุนายน",
	"กรกฎาคม", "สิงหาคม", "กันยายน", "ตุลาคม", "พฤศจิกายน", "ธันวาคม"}

// BuddhistYear is t's year in the Buddhist era (Thai documents).
func BuddhistYear(t time.Time) int { return t.Year() + 543 }

// ThaiDate is a calendar day as Thai documents write it: 25 พฤศจิกายน 2569.
func ThaiDate(d time.Time) string {
	return fmt.Sprintf("%d %s %d", d.Day(), thaiMonths[d.Month()-1], BuddhistYear(d))
}

// FormatBaht writes satang as baht with thousands separators: 1,070.50.
func FormatBaht(satang int64) string {
	sign := ""
	if satang < 0 {
		sign, satang = "-", -satang
	}
	whole := fmt.Sprint(satang / 100)
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return fmt.Sprintf("%s%s.%02d", sign, b.String(), satang%100)
}

// ReminderMail is the Thai reminder that a plan which does not renew ends
// soon, with a link to buy more days.
func ReminderMail(to, tierLabel, kind string, end time.Time, publicURL string) Mail {
	when := "อีก 7 วัน"
	if kind == Reminder1Day {
		when = "พรุ่งนี้"
	}
	link := strings.TrimRight(publicURL, "/") + "/payment"
	subject := fmt.Sprintf("แพ็กเกจ%sของคุณจะสิ้นสุด%s", tierLabel, when)
	text := fmt.Sprintf("สวัสดีครับ/ค่ะ\n\nแพ็กเกจ%s ของคุณใช้งานได้ถึงวันที่ %s และจะสิ้นสุด%s "+
		"หลังจากนั้นบัญชีจะกลับเป็นแพ็กเกจฟรี\n\nต่ออายุได้ที่ %s\n\nBidRadar Thailand\n",
		tierLabel, ThaiDate(end), when, link)
	page := fmt.Sprintf(`<p>สวัสดีครับ/ค่ะ</p><p>แพ็กเกจ<strong>%s</strong> ของคุณใช้งานได้ถึงวันที่ <strong>%s</strong> และจะสิ้นสุด%s หลังจากนั้นบัญชีจะกลับเป็นแพ็กเกจฟรี</p><p><a href="%s">ต่ออายุแพ็กเกจ</a></p><p>BidRadar Thailand</p>`,
		html.EscapeString(tierLabel), ThaiDate(end), when, html.EscapeString(link))
	return Mail{To: to, Subject: subject, Text: text, HTML: page}
}
