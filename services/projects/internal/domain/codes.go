package domain

// Code is a reference-data entry: a stable code and its Thai label.
type Code struct {
	Code   string
	NameTh string
}

// AnnouncementType is an e-GP announcement type code (the RSS anounceType).
type AnnouncementType string

// The nine RSS announcement types (EGP.md §1.3).
const (
	AnnPlan            AnnouncementType = "P0"
	AnnReferencePrice  AnnouncementType = "15"
	AnnDraft           AnnouncementType = "B0"
	AnnInvitation      AnnouncementType = "D0"
	AnnInvitationVoid  AnnouncementType = "D1"
	AnnInvitationEdit  AnnouncementType = "D2"
	AnnWinner          AnnouncementType = "W0"
	AnnWinnerCancelled AnnouncementType = "W1"
	AnnWinnerChanged   AnnouncementType = "W2"
)

// AnnouncementTypes lists the announcement types in lifecycle order, with
// their official Thai labels.
var AnnouncementTypes = []Code{
	{"P0", "แผนการจัดซื้อจัดจ้าง"},
	{"B0", "ร่างเอกสารประกวดราคา"},
	{"15", "ประกาศราคากลาง"},
	{"D0", "ประกาศเชิญชวน"},
	{"D2", "เปลี่ยนแปลงประกาศเชิญชวน"},
	{"D1", "ยกเลิกประกาศเชิญชวน"},
	{"W0", "ประกาศรายชื่อผู้ชนะการเสนอราคา"},
	{"W2", "เปลี่ยนแปลงประกาศรายชื่อผู้ชนะการเสนอราคา"},
	{"W1", "ยกเลิกประกาศรายชื่อผู้ชนะการเสนอราคา"},
}

// Extra Thai labels seen in feeds for the same types (short forms).
var announcementAliases = map[string]AnnouncementType{
	"ประกาศรายชื่อผู้ชนะ":                        AnnWinner,
	"ประกาศรายชื่อผู้ชนะ / ผู้ได้รับการคัดเลือก": AnnWinner,
	"ประกาศผู้ชนะการเสนอราคา":                    AnnWinner,
	"ยกเลิกประกาศผู้ชนะ":                         AnnWinnerCancelled,
	"เปลี่ยนแปลงประกาศผู้ชนะ":                    AnnWinnerChanged,
	"ร่างเอกสารประกวดราคา (e-bidding)/สอบราคา":   AnnDraft,
	"ร่างเอกสารประกวดราคา (e-Bidding)/สอบราคา":   AnnDraft,
	"แผนการจัดซื้อจัดจ้างประจำปี":                AnnPlan,
	"ประกาศเชิญชวนทั่วไป":                        AnnInvitation,
	"ประกาศแผนการจัดซื้อจัดจ้าง":                 AnnPlan,
}

// Valid reports whether t is one of the nine known codes.
func (t AnnouncementType) Valid() bool {
	for _, c := range AnnouncementTypes {
		if c.Code == string(t) {
			return true
		}
	}
	return false
}

// NameTh is the official Thai label of t ("" when unknown).
func (t AnnouncementType) NameTh() string {
	for _, c := range AnnouncementTypes {
		if c.Code == string(t) {
			return c.NameTh
		}
	}
	return ""
}

// Rank is the lifecycle position of t, used to order steps of the same day.
func (t AnnouncementType) Rank() int {
	for i, c := range AnnouncementTypes {
		if c.Code == string(t) {
			return i
		}
	}
	return -1
}

// AnnouncementTypeFromLabel maps a Thai label (as e-GP writes it in RSS
// descriptions) to its code.
func AnnouncementTypeFromLabel(label string) (AnnouncementType, bool) {
	label = collapse(label)
	for _, c := range AnnouncementTypes {
		if c.NameTh == label {
			return AnnouncementType(c.Code), true
		}
	}
	t, ok := announcementAliases[label]
	return t, ok
}

// Methods are the e-GP procurement methods (methodId, EGP.md §1.4).
var Methods = []Code{
	{"01", "ตกลงราคา"},
	{"02", "สอบราคา"},
	{"03", "ประกวดราคา"},
	{"04", "พิเศษ"},
	{"05", "กรณีพิเศษ"},
	{"06", "ประกวดราคาด้วยวิธีการทางอิเล็กทรอนิกส์โดยผ่านผู้ให้บริการตลาดกลาง"},
	{"08", "จ้างที่ปรึกษาโดยวิธีตกลง"},
	{"09", "จ้างที่ปรึกษาโดยวิธีคัดเลือก"},
	{"10", "จ้างออกแบบโดยวิธีตกลง"},
	{"11", "จ้างออกแบบโดยวิธีคัดเลือก"},
	{"12", "จ้างออกแบบโดยวิธีคัดเลือกแบบจำกัดข้อกำหนด"},
	{"13", "จ้างออกแบบโดยวิธีพิเศษ"},
	{"14", "จ้างออกแบบโดยวิธีพิเศษประกวดแบบ"},
	{"15", "ตลาดอิเล็กทรอนิกส์ (e-market)"},
	{"16", "ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)"},
	{"17", "เฉพาะเจาะจง ผ่านบัตรพัสดุ"},
	{"18", "คัดเลือก"},
	{"19", "เฉพาะเจาะจง"},
	{"20", "จ้างที่ปรึกษาโดยวิธีประกาศเชิญชวนทั่วไป"},
	{"21", "จ้างที่ปรึกษาโดยวิธีคัดเลือก"},
	{"22", "จ้างที่ปรึกษาโดยวิธีเฉพาะเจาะจง"},
	{"23", "จ้างออกแบบหรือควบคุมงานก่อสร้างโดยวิธีประกาศเชิญชวนทั่วไป"},
	{"24", "จ้างออกแบบหรือควบคุมงานก่อสร้างโดยวิธีคัดเลือก"},
	{"25", "จ้างออกแบบหรือควบคุมงานก่อสร้างโดยวิธีเฉพาะเจาะจง"},
	{"26", "จ้างออกแบบหรือควบคุมงานก่อสร้างโดยวิธีประกวดแบบ"},
	{"28", "ประกวดราคานานาชาติ"},
}

// MethodName is the Thai name of a method code.
func MethodName(code string) string {
	for _, m := range Methods {
		if m.Code == code {
			return m.NameTh
		}
	}
	return ""
}

// MethodFromName maps a Thai method name (from an RSS description, a title
// suffix "โดยวิธี…"/"ด้วยวิธี…", or the open-data column) to its code.
// Matching is on the normalised name; "e-bidding" and "e-market" spellings
// vary in case.
func MethodFromName(name string) (string, bool) {
	if code, ok := methodByName[name]; ok {
		return code, true
	}
	n := normKey(name)
	if n == "" {
		return "", false
	}
	if code, ok := methodByName[n]; ok {
		return code, true
	}
	switch {
	case contains(n, "e-bidding"), contains(n, "ประกวดราคาอิเล็กทรอนิกส์"):
		return "16", true
	case contains(n, "e-market"), contains(n, "ตลาดอิเล็กทรอนิกส์"):
		return "15", true
	case contains(n, "ผ่านบัตรพัสดุ"):
		return "17", true
	case n == "วิธีเฉพาะเจาะจง", n == "เฉพาะเจาะจง":
		return "19", true
	case n == "วิธีคัดเลือก":
		return "18", true
	}
	return "", false
}

// WorkTypes are the categories of work (typeId / ชื่อประเภทโครงการ).
var WorkTypes = []Code{
	{"01", "ซื้อ"},
	{"02", "จ้างก่อสร้าง"},
	{"03", "จ้างทำของ/จ้างเหมาบริการ"},
	{"04", "เช่า"},
	{"05", "จ้างที่ปรึกษา"},
	{"06", "จ้างออกแบบ"},
	{"07", "จ้างควบคุมงาน"},
	{"08", "จ้างออกแบบและควบคุมงานก่อสร้าง"},
}

// WorkTypeFromName maps a ชื่อประเภทโครงการ value to its code.
func WorkTypeFromName(name string) (string, bool) {
	if code, ok := workTypeByName[name]; ok {
		return code, true
	}
	code, ok := workTypeByName[normKey(name)]
	return code, ok
}

// WorkTypeName is the Thai name of a category-of-work code.
func WorkTypeName(code string) string {
	for _, w := range WorkTypes {
		if w.Code == code {
			return w.NameTh
		}
	}
	return ""
}

// Strategies are the six pillars of the 20-year National Strategy
// (ยุทธศาสตร์ชาติ), the "strategy" dropdown of the criteria form.
var Strategies = []Code{
	{"1", "ด้านความมั่นคง"},
	{"2", "ด้านการสร้างความสามารถในการแข่งขัน"},
	{"3", "ด้านการพัฒนาและเสริมสร้างศักยภาพทรัพยากรมนุษย์"},
	{"4", "ด้านการสร้างโอกาสและความเสมอภาคทางสังคม"},
	{"5", "ด้านการสร้างการเติบโตบนคุณภาพชีวิตที่เป็นมิตรต่อสิ่งแวดล้อม"},
	{"6", "ด้านการปรับสมดุลและพัฒนาระบบการบริหารจัดการภาครัฐ"},
}

// Ministries is the 2-digit ministry list used by e-GP department codes
// (deptId = ministry + department). Codes follow the order of the legacy
// e-GP search form; 25 = bodies outside any ministry, and the local
// administration codes are grouped under 99 here.
var Ministries = []Code{
	{"01", "สำนักนายกรัฐมนตรี"},
	{"02", "กระทรวงกลาโหม"},
	{"03", "กระทรวงการคลัง"},
	{"04", "กระทรวงการต่างประเทศ"},
	{"05", "กระทรวงการท่องเที่ยวและกีฬา"},
	{"06", "กระทรวงการพัฒนาสังคมและความมั่นคงของมนุษย์"},
	{"07", "กระทรวงเกษตรและสหกรณ์"},
	{"08", "กระทรวงคมนาคม"},
	{"09", "กระทรวงทรัพยากรธรรมชาติและสิ่งแวดล้อม"},
	{"10", "กระทรวงดิจิทัลเพื่อเศรษฐกิจและสังคม"},
	{"11", "กระทรวงพลังงาน"},
	{"13", "กระทรวงพาณิชย์"},
	{"14", "กระทรวงมหาดไทย"},
	{"15", "กระทรวงยุติธรรม"},
	{"17", "กระทรวงแรงงาน"},
	{"18", "กระทรวงวัฒนธรรม"},
	{"19", "กระทรวงการอุดมศึกษา วิทยาศาสตร์ วิจัยและนวัตกรรม"},
	{"20", "กระทรวงศึกษาธิการ"},
	{"21", "กระทรวงสาธารณสุข"},
	{"22", "กระทรวงอุตสาหกรรม"},
	{"25", "หน่วยงานที่ไม่สังกัดสำนักนายกรัฐมนตรี กระทรวง หรือทบวง"},
	{"99", "องค์กรปกครองส่วนท้องถิ่น"},
}

// MinistryName is the Thai name of a ministry code.
func MinistryName(code string) string {
	for _, m := range Ministries {
		if m.Code == code {
			return m.NameTh
		}
	}
	return ""
}

var methodByName, workTypeByName = func() (map[string]string, map[string]string) {
	m := map[string]string{}
	for _, c := range Methods {
		if _, dup := m[normKey(c.NameTh)]; !dup {
			m[normKey(c.NameTh)] = c.Code
		}
	}
	w := map[string]string{}
	for _, c := range WorkTypes {
		w[normKey(c.NameTh)] = c.Code
	}
	return m, w
}()
