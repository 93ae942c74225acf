package domain

import (
	"math"
	"slices"
	"unicode/utf8"

	"github.com/google/uuid"
)

// EventCriteriaMatched is the event of an overnight search's digest.
const EventCriteriaMatched = "criteria.matched"

// EventProjectMatched is the event of a project that saved normal searches
// newly match: the instant alerts of one project.
const EventProjectMatched = "project.matched"

// MaxMatchesPerEvent bounds the searches one project.matched event names
// (a message stays well under JetStream's 1 MB); a project matching more
// new searches is told in several events.
const MaxMatchesPerEvent = 2000

// ProjectMatches is a project and the saved normal searches it matches.
// The alerts are grouped by project, not by search: a project of a bulk
// import matches ~160 searches, and one record and one event a project
// instead of one a match is what lets the alerts keep up with an import.
type ProjectMatches struct {
	Project  *Project
	Searches []*SavedCriteria
}

// Chunks splits the searches into groups of at most MaxMatchesPerEvent,
// each the searches of one event.
func (m ProjectMatches) Chunks() [][]*SavedCriteria {
	var out [][]*SavedCriteria
	for s := m.Searches; len(s) > 0; {
		n := min(len(s), MaxMatchesPerEvent)
		out, s = append(out, s[:n:n]), s[n:]
	}
	return out
}

// anchorRunes is the length of the keyword prefix criteria are indexed by.
const anchorRunes = 6

// CriteriaIndex finds, for a project, the saved normal searches it matches,
// with the search's own semantics (Matcher, the oracle of search). It does
// not evaluate every search against every project: a search with keywords
// is indexed by the first runes of one keyword every match must contain
// (the longest "all" keyword, or each "any" keyword), so a project only
// meets the searches whose anchor occurs in its text; searches without
// keywords are met by every project. Under each anchor, searches that name
// provinces are filed under each of them and the others apart, so a
// project only meets the searches of its own province and the nationwide
// ones (most searches name one province: a common word would otherwise
// bring thousands of searches that the province then rejects one by one).
type CriteriaIndex struct {
	anchored map[string]*bucket
	always   bucket
	size     int
	methods  map[string]uint64 // a method's bit in entry.methods
}

// bucket holds the searches under one anchor (or of no anchor).
type bucket struct {
	nationwide []entry
	province   map[string][]entry // by province code
}

// add files e under each of its (distinct) provinces, or nationwide.
func (b *bucket) add(e entry, provinces []string) {
	if len(provinces) == 0 {
		b.nationwide = append(b.nationwide, e)
		return
	}
	if b.province == nil {
		b.province = map[string][]entry{}
	}
	for _, p := range provinces {
		b.province[p] = append(b.province[p], e)
	}
}

// entry is a search under an anchor. Most searches a project meets there
// fail on their method or budget (57 % in the bench's import), so those
// two are copied into the entry and checked first, from the bucket's own
// memory, before the matcher, which is elsewhere in memory and checks
// everything again.
type entry struct {
	saved *SavedCriteria
	m     *Matcher
	// methods: the bits of the methods the search accepts (methodBits),
	// all ones when it names none or names a method the index has no bit
	// for.
	methods uint64
	// budget: the search bounds the budget, to [minBudget, maxBudget].
	budget               bool
	minBudget, maxBudget Money
	// multi: filed under several anchors, so a project may meet it twice.
	multi bool
}

// mayMatch is the entry's part of the matcher's filters: false only when
// the matcher would say false.
func (e *entry) mayMatch(p *Project, method uint64) bool {
	if e.methods&method == 0 {
		return false
	}
	return !e.budget || p.Budget != nil && *p.Budget >= e.minBudget && *p.Budget <= e.maxBudget
}

// NewCriteriaIndex indexes the normal searches among saved (overnight
// searches never alert instantly).
func NewCriteriaIndex(saved []SavedCriteria) *CriteriaIndex { return newIndex(saved, SearchNormal) }

// NewOvernightIndex indexes the overnight searches among saved.
func NewOvernightIndex(saved []SavedCriteria) *CriteriaIndex { return newIndex(saved, SearchOvernight) }

func newIndex(saved []SavedCriteria, searchType string) *CriteriaIndex {
	ix := &CriteriaIndex{anchored: map[string]*bucket{}, methods: map[string]uint64{}}
	for i := range saved {
		s := &saved[i]
		if s.SearchType != searchType {
			continue
		}
		c := s.Form.Criteria()
		e := entry{saved: s, methods: ix.methodBits(c.Methods), budget: c.MinBudget != nil || c.MaxBudget != nil,
			minBudget: math.MinInt64, maxBudget: math.MaxInt64}
		if c.MinBudget != nil {
			e.minBudget = *c.MinBudget
		}
		if c.MaxBudget != nil {
			e.maxBudget = *c.MaxBudget
		}
		var provinces []string
		for _, p := range c.Provinces {
			if !slices.Contains(provinces, p) {
				provinces = append(provinces, p)
			}
		}
		// The buckets file the search under its provinces: its matcher
		// need not compare them again (reading each search's province
		// strings was a tenth of the matching's time, all cache misses).
		c.Provinces = nil
		e.m = NewMatcher(c)
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
			ix.add(anchor(longest), e, provinces)
		case len(t.Any) > 0:
			var anchors []string
			for _, k := range t.Any {
				if a := anchor(k); !slices.Contains(anchors, a) {
					anchors = append(anchors, a)
				}
			}
			e.multi = len(anchors) > 1
			for _, a := range anchors {
				ix.add(a, e, provinces)
			}
		default:
			ix.always.add(e, provinces)
		}
	}
	return ix
}

// Len is the number of indexed searches.
func (ix *CriteriaIndex) Len() int { return ix.size }

func (ix *CriteriaIndex) add(key string, e entry, provinces []string) {
	b := ix.anchored[key]
	if b == nil {
		b = &bucket{}
		ix.anchored[key] = b
	}
	b.add(e, provinces)
}

// otherMethods is the bit of a project whose method no search names (the
// last bit): only the searches accepting any method (all bits) pass it.
const otherMethods = uint64(1) << 63

// methodBits is the entry.methods of a search naming methods: a bit for
// each, numbered as the index first meets them (the first 63 methods).
func (ix *CriteriaIndex) methodBits(methods []string) uint64 {
	if len(methods) == 0 {
		return ^uint64(0)
	}
	var bits uint64
	for _, m := range methods {
		bit, ok := ix.methods[m]
		if !ok {
			if len(ix.methods) == 63 {
				return ^uint64(0) // no bit left: the matcher decides
			}
			bit = uint64(1) << len(ix.methods)
			ix.methods[m] = bit
		}
		bits |= bit
	}
	return bits
}

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
	var seen map[*SavedCriteria]bool // of the multi entries matched
	method, named := ix.methods[p.MethodCode]
	if !named {
		method = otherMethods
	}
	try := func(es []entry) {
		for i := range es {
			e := &es[i]
			if !e.mayMatch(p, method) || e.multi && seen[e.saved] {
				continue
			}
			if e.m.Match(p) {
				if e.multi {
					if seen == nil {
						seen = map[*SavedCriteria]bool{}
					}
					seen[e.saved] = true
				}
				out = append(out, e.saved)
			}
		}
	}
	tryBucket := func(b *bucket) {
		try(b.nationwide)
		try(b.province[p.ProvinceCode])
	}
	tryBucket(&ix.always)
	if len(ix.anchored) == 0 {
		return out
	}
	// Every substring of 1 to anchorRunes runes of the text is a possible
	// anchor: one map lookup each, each anchor tried once.
	text := p.SearchText
	var looked map[*bucket]bool
	for i := range text {
		j := i
		for n := 0; n < anchorRunes && j < len(text); n++ {
			_, w := utf8.DecodeRuneInString(text[j:])
			j += w
			b := ix.anchored[text[i:j]]
			if b == nil || looked[b] {
				continue
			}
			if looked == nil {
				looked = map[*bucket]bool{}
			}
			looked[b] = true
			tryBucket(b)
		}
	}
	return out
}

// SearchKey is a saved search's id as its 16 bytes, how the instant alerts
// store and send the searches that matched: a third of the id's 36
// characters, and no text to parse for each of a bulk import's millions of
// matches.
type SearchKey [16]byte

// ParseSearchKey reads a search id (a UUID of 36 characters, in either
// case); ok is false for anything else.
func ParseSearchKey(id string) (k SearchKey, ok bool) {
	if len(id) != 36 { // uuid.Parse also takes braces, urn:uuid: and no dashes
		return k, false
	}
	u, err := uuid.Parse(id)
	if err != nil {
		return k, false
	}
	return SearchKey(u), true
}

// String is the key as the canonical lower-case id.
func (k SearchKey) String() string { return uuid.UUID(k).String() }
