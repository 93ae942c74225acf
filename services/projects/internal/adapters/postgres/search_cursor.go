package postgres

import (
	"encoding/base64"
	"encoding/json"
	"time"

	"bidradar/services/projects/internal/domain"
)

// cursor is the keyset position after the last row of a page.
type cursor struct {
	Score  int    `json:"s,omitempty"`
	Date   string `json:"d,omitempty"`
	Budget int64  `json:"b,omitempty"`
	// Due is the last row's deadline in the upcoming part of SortDeadline
	// (empty: the cursor is in its second part, in date order).
	Due string `json:"u,omitempty"`
	ID  string `json:"i"`
}

func encodeCursor(c cursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (cursor, error) {
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || !domain.ValidProjectID(c.ID) {
		return c, domain.InvalidCriteria("bad cursor")
	}
	for _, d := range []string{c.Date, c.Due} {
		if _, err := time.Parse(time.DateOnly, d); d != "" && err != nil {
			return c, domain.InvalidCriteria("bad cursor")
		}
	}
	return c, nil
}

// pageKey is a page row's position: its id, announcement date and sort
// key (the page query's numeric column, read as satang: budget, score ×
// 100, or days since dueEpoch × 100; nil in SortDeadline's second part).
type pageKey struct {
	id   string
	date time.Time
	key  *domain.Money
}

// cursorAfter is the cursor that continues a page sorted by s after row k.
func cursorAfter(s domain.SortOrder, k pageKey) cursor {
	c := cursor{ID: k.id, Date: k.date.Format("2006-01-02")}
	var v int64
	if k.key != nil {
		v = int64(*k.key)
	}
	switch s {
	case domain.SortBudget:
		c.Budget = v
	case domain.SortRelevance:
		c.Score = int(v / 100)
	case domain.SortDeadline:
		if k.key != nil {
			c.Due = dueEpoch.AddDate(0, 0, int(v/100)).Format(time.DateOnly)
		}
	}
	return c
}
