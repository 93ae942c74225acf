package ports

import (
	"errors"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/apperr"
)

// FuzzCriteriaJSON: any JSON body of a listing or a saved search is either
// refused as a client error or turned into criteria that validate; never a
// panic, never an internal error.
func FuzzCriteriaJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"keyword":"ถนน","page":2}`, `{"keyWord_Incl_Or":["โดรน","กล้อง"],"keyWord_Excl_Nor":["ซ่อม"]}`,
		`{"annouSDate_User":"2569-13-45"}`, `{"annouSDate_User":"1/10/2569","annouEDate_User":"2026-01-01"}`,
		`{"projectMoneyS_User":-1,"projectMoneyE_User":1e308}`, `{"project_id_User":["6909972220X"]}`,
		`{"budgetYear_User":["abc"]}`, `{"keyword":"\u0000"}`, `{"sort":"nonsense"}`,
		`{"sort":"deadline","closing_within_days":7}`, `{"closing_within_days":-1}`, `{"closing_within_days":400}`,
		`{"dueSDate_User":"2026-12-31","dueEDate_User":"2026-12-01"}`, `{"dueSDate_User":"31/13/2569"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var req projectsv1.ListProjectsRequest
		if protojson.Unmarshal([]byte(body), &req) != nil {
			return // the gateway answers 400 before this
		}
		c, err := criteria(&req, time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC))
		if err != nil {
			if ce := apperr.ToConnect(err); ce.Code() == connect.CodeInternal {
				t.Fatalf("%s: internal error %v", body, err)
			}
			var ae *apperr.Error
			if !errors.As(err, &ae) {
				t.Fatalf("%s: untyped error %v", body, err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("%s: accepted criteria do not validate: %v", body, err)
		}
	})
}
