package domain_test

import (
	"reflect"
	"testing"
	"time"

	"bidradar/services/projects/internal/domain"
)

// Unfiltered holds only for criteria with no condition but keywords, for
// every field of Criteria (a field added later fails here until Unfiltered
// and Match both know it).
func TestUnfilteredKnowsEveryFilter(t *testing.T) {
	t.Parallel()
	today := time.Date(2026, 9, 30, 0, 0, 0, 0, domain.Bangkok)
	if !(domain.Criteria{Keyword: "ถนน", AnyOf: []string{"ก"}, AllOf: []string{"ข"}, NoneOf: []string{"ค"}, Sort: domain.SortDeadline, Today: today}).Unfiltered() {
		t.Fatal("keywords, a sort and today are no filter")
	}
	notFilters := map[string]bool{"Keyword": true, "AnyOf": true, "AllOf": true, "NoneOf": true, "Sort": true, "Today": true}
	typ := reflect.TypeFor[domain.Criteria]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if notFilters[f.Name] {
			continue
		}
		c := domain.Criteria{Today: today}
		v := reflect.ValueOf(&c).Elem().Field(i)
		switch v.Kind() {
		case reflect.Slice:
			v.Set(reflect.MakeSlice(f.Type, 1, 1))
		case reflect.Pointer:
			v.Set(reflect.New(f.Type.Elem()))
		case reflect.Int:
			v.SetInt(7)
		default:
			t.Fatalf("field %s (%s): teach this test (and Unfiltered) about it", f.Name, f.Type)
		}
		if c.Unfiltered() {
			t.Errorf("criteria with %s set reported unfiltered", f.Name)
		}
	}
}
