package domain

import "unicode/utf8"

// EventCriteriaMatched is the event of a saved search finding a project.
const EventCriteriaMatched = "criteria.matched"

// CriteriaMatch is one saved normal search matching one project: the alert
// the notification service turns into a bell notification.
type CriteriaMatch struct {
	Criteria SavedCriteria
	Project  Project
}

// anchorRunes is the length of the keyword prefix criteria are indexed by.
const anchorRunes = 3

// CriteriaIndex finds, for a project, the saved normal searches it matches,
// with the search's own semantics (Matcher, the oracle of search). It does
// not evaluate every search against every project: a search with keywords
// is indexed by the first runes of one keyword every match must contain
// (the longest "all" keyword, or each "any" keyword), so a project only
// meets the searches whose anchor occurs in its text; searches without
// keywords are evaluated for every project.
type CriteriaIndex struct {
	anchored map[string][]entry
	always   []entry
	size     int
}

type entry struct {
	saved *SavedCriteria
	m     *Matcher
}

// NewCriteriaIndex indexes the normal searches among saved (overnight
// searches never alert instantly).
func NewCriteriaIndex(saved []SavedCriteria) *CriteriaIndex { return newIndex(saved, SearchNormal) }

// NewOvernightIndex indexes the overnight searches among saved.
func NewOvernightIndex(saved []SavedCriteria) *CriteriaIndex { return newIndex(saved, SearchOvernight) }

func newIndex(saved []SavedCriteria, searchType string) *CriteriaIndex {
	ix := &CriteriaIndex{anchored: map[string][]entry{}}
	for i := range saved {
		s := &saved[i]
		if s.SearchType != searchType {
			continue
		}
		c := s.Form.Criteria()
		e := entry{saved: s, m: NewMatcher(c)}
		ix.size++
		t := c.Terms()
		switch {
		case len(t.All) > 0:
			longest := t.All[0]
			for _, k := range t.All[1:] {
				if utf8.RuneCountInString(k) > utf8.RuneCountInString(longest) {
					longest = k
				}
			}
			ix.add(anchor(longest), e)
		case len(t.Any) > 0:
			seen := map[string]bool{}
			for _, k := range t.Any {
				if a := anchor(k); !seen[a] {
					seen[a] = true
					ix.add(a, e)
				}
			}
		default:
			ix.always = append(ix.always, e)
		}
	}
	return ix
}

// Len is the number of indexed searches.
func (ix *CriteriaIndex) Len() int { return ix.size }

func (ix *CriteriaIndex) add(key string, e entry) { ix.anchored[key] = append(ix.anchored[key], e) }

func anchor(term string) string {
	n := 0
	for i := range term {
		if n == anchorRunes {
			return term[:i]
		}
		n++
	}
	return term
}

// Match returns the searches p matches (p.SearchText derived), each once.
func (ix *CriteriaIndex) Match(p *Project) []*SavedCriteria {
	var out []*SavedCriteria
	seen := map[*SavedCriteria]bool{}
	try := func(es []entry) {
		for _, e := range es {
			if !seen[e.saved] && e.m.Match(p) {
				seen[e.saved] = true
				out = append(out, e.saved)
			}
		}
	}
	try(ix.always)
	if len(ix.anchored) == 0 {
		return out
	}
	// Every substring of 1 to anchorRunes runes of the text is a possible
	// anchor: one map lookup each.
	text := p.SearchText
	looked := map[string]bool{}
	for i := range text {
		j := i
		for n := 0; n < anchorRunes && j < len(text); n++ {
			_, w := utf8.DecodeRuneInString(text[j:])
			j += w
			key := text[i:j]
			if looked[key] {
				continue
			}
			looked[key] = true
			try(ix.anchored[key])
		}
	}
	return out
}
