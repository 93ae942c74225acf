package domain

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

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
	anchored map[string]anchorNode
	always   bucket
	size     int
	methods  map[string]uint64 // a method's bit in entry.methods
	terms    []string          // the keywords of the entries, by id
	termIDs  map[string]int32
	found    sync.Pool // of *termsFound
}

// anchorNode is what the index holds under a text of 1 to anchorRunes
// runes: the bucket when it is an anchor, and whether it begins a longer
// anchor. A text the index does not hold begins none, so a project's text
// is looked up only as far as it can still lead to an anchor (two or
// three lookups a position in it, not anchorRunes).
type anchorNode struct {
	b      *bucket
	longer bool
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
// memory. A search of keywords and those filters only (nearly all) is
// then decided by the entry too: its keywords are held as ids of the
// index's terms, and a term is looked for once in a project's text however
// many searches name it. Any other search keeps its matcher (rest), which
// checks everything again.
type entry struct {
	saved *SavedCriteria
	// key: the search's key (hasKey false for an id that is not a UUID,
	// never one read from the store), kept here for AppendKeys.
	key    SearchKey
	hasKey bool
	// rest: the search's matcher, when the entry cannot decide alone; nil
	// when the entry holds every condition of the search.
	rest *Matcher
	// methods: the bits of the methods the search accepts (methodBits),
	// all ones when it names none or names a method the index has no bit
	// for.
	methods uint64
	// budget: the search bounds the budget, to [minBudget, maxBudget].
	budget               bool
	minBudget, maxBudget Money
	// multi: filed under several anchors, so a project may meet it twice.
	multi bool
	// terms: the ids of its keywords when rest is nil, in keywordsMatch's
	// order: nAll, then nAny, then nNone.
	terms             [maxEntryTerms]int32
	nAll, nAny, nNone uint8
}

// maxEntryTerms bounds the keywords an entry decides alone (a search of
// more keeps its matcher): nearly every search names one to three.
const maxEntryTerms = 4

// mayMatch is the entry's part of the matcher's filters: false only when
// the matcher would say false.
func (e *entry) mayMatch(p *Project, method uint64) bool {
	if e.methods&method == 0 {
		return false
	}
	return !e.budget || p.Budget != nil && *p.Budget >= e.minBudget && *p.Budget <= e.maxBudget
}

// match decides the search for p, of which mayMatch is true.
func (e *entry) match(p *Project, terms *termsFound) bool {
	if e.rest != nil {
		return e.rest.Match(p)
	}
	return keywordsMatch(int(e.nAll), int(e.nAny), int(e.nNone), func(i int) bool {
		return terms.in(p.SearchText, e.terms[i])
	})
}

// termsFound remembers, for one project, which of the index's terms its
// text contains: a bulk import's project meets ~450 searches under its
// anchors, which name a handful of distinct terms.
type termsFound struct {
	terms []string
	// state[id] is 2*gen when term id was looked for and is absent,
	// 2*gen+1 when present, anything else when not looked for yet.
	state []uint32
	gen   uint32
}

func (f *termsFound) in(text string, id int32) bool {
	switch f.state[id] {
	case 2 * f.gen:
		return false
	case 2*f.gen + 1:
		return true
	}
	ok := strings.Contains(text, f.terms[id])
	f.state[id] = 2 * f.gen
	if ok {
		f.state[id]++
	}
	return ok
}

// next forgets every term, for the next project.
func (f *termsFound) next() {
	f.gen++
	if f.gen == 1<<31-1 {
		clear(f.state)
		f.gen = 1
	}
}

// NewCriteriaIndex indexes the normal searches among saved (overnight
// searches never alert instantly).
func NewCriteriaIndex(saved []SavedCriteria) *CriteriaIndex { return newIndex(saved, SearchNormal) }

// NewOvernightIndex indexes the overnight searches among saved.
func NewOvernightIndex(saved []SavedCriteria) *CriteriaIndex { return newIndex(saved, SearchOvernight) }

func newIndex(saved []SavedCriteria, searchType string) *CriteriaIndex {
	ix := &CriteriaIndex{anchored: map[string]anchorNode{}, methods: map[string]uint64{}, termIDs: map[string]int32{}}
	for i := range saved {
		s := &saved[i]
		if s.SearchType != searchType {
			continue
		}
		c := s.Form.Criteria()
		methods, exact := ix.methodBits(c.Methods)
		e := entry{saved: s, methods: methods, budget: c.MinBudget != nil || c.MaxBudget != nil,
			minBudget: math.MinInt64, maxBudget: math.MaxInt64}
		e.key, e.hasKey = s.SearchKey()
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
		t := c.Terms()
		if !exact || len(t.All)+len(t.Any)+len(t.None) > maxEntryTerms || !onlyEntryConditions(c) {
			e.rest = NewMatcher(c)
		} else {
			e.nAll, e.nAny, e.nNone = uint8(len(t.All)), uint8(len(t.Any)), uint8(len(t.None))
			for j, k := range t.ordered() {
				e.terms[j] = ix.termID(k)
			}
		}
		ix.size++
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
	n := len(ix.terms)
	ix.found.New = func() any { return &termsFound{terms: ix.terms, state: make([]uint32, n), gen: 1} }
	return ix
}

// onlyEntryConditions reports whether c (its provinces removed) has no
// condition but its keywords, methods and budget bounds, which an entry
// holds. Any other field set, including one added to Criteria later,
// leaves the search to its matcher.
func onlyEntryConditions(c Criteria) bool {
	c.Keyword, c.AllOf, c.AnyOf, c.NoneOf = "", nil, nil, nil
	c.Methods, c.MinBudget, c.MaxBudget, c.Sort = nil, nil, nil, ""
	return reflect.ValueOf(c).IsZero()
}

func (ix *CriteriaIndex) termID(term string) int32 {
	id, ok := ix.termIDs[term]
	if !ok {
		id = int32(len(ix.terms))
		ix.terms = append(ix.terms, term)
		ix.termIDs[term] = id
	}
	return id
}

// Len is the number of indexed searches.
func (ix *CriteriaIndex) Len() int { return ix.size }

func (ix *CriteriaIndex) add(key string, e entry, provinces []string) {
	n := ix.anchored[key]
	if n.b == nil {
		n.b = &bucket{}
		ix.anchored[key] = n
		for i := range key { // its shorter prefixes lead to it
			if i > 0 {
				pre := ix.anchored[key[:i]]
				pre.longer = true
				ix.anchored[key[:i]] = pre
			}
		}
	}
	n.b.add(e, provinces)
}

// otherMethods is the bit of a project whose method no search names (the
// last bit): only the searches accepting any method (all bits) pass it.
const otherMethods = uint64(1) << 63

// methodBits is the entry.methods of a search naming methods: a bit for
// each, numbered as the index first meets them (the first 63 methods).
// exact is false when a method has no bit left (all ones: the search's
// matcher decides).
func (ix *CriteriaIndex) methodBits(methods []string) (bits uint64, exact bool) {
	if len(methods) == 0 {
		return ^uint64(0), true
	}
	for _, m := range methods {
		bit, ok := ix.methods[m]
		if !ok {
			if len(ix.methods) == 63 {
				return ^uint64(0), false
			}
			bit = uint64(1) << len(ix.methods)
			ix.methods[m] = bit
		}
		bits |= bit
	}
	return bits, true
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
	ix.each(p, func(e *entry) { out = append(out, e.saved) })
	return out
}

// AppendKeys appends to dst the keys of the searches p matches, each once,
// read from the index's own entries (a search whose id is not a UUID,
// never one read from the store, is left out). A write matching a batch of
// projects keeps their keys in one growing buffer instead of growing a
// slice for each project (~160 keys a project in a bulk import).
func (ix *CriteriaIndex) AppendKeys(dst []SearchKey, p *Project) []SearchKey {
	ix.each(p, func(e *entry) {
		if e.hasKey {
			dst = append(dst, e.key)
		}
	})
	return dst
}

// each calls found with the entry of each search p matches, once a search.
func (ix *CriteriaIndex) each(p *Project, found func(*entry)) {
	var seen map[*SavedCriteria]bool // of the multi entries matched
	method, named := ix.methods[p.MethodCode]
	if !named {
		method = otherMethods
	}
	terms := ix.found.Get().(*termsFound)
	defer func() { terms.next(); ix.found.Put(terms) }()
	try := func(es []entry) {
		for i := range es {
			e := &es[i]
			if !e.mayMatch(p, method) || e.multi && seen[e.saved] {
				continue
			}
			if e.match(p, terms) {
				if e.multi {
					if seen == nil {
						seen = map[*SavedCriteria]bool{}
					}
					seen[e.saved] = true
				}
				found(e)
			}
		}
	}
	tryBucket := func(b *bucket) {
		try(b.nationwide)
		try(b.province[p.ProvinceCode])
	}
	tryBucket(&ix.always)
	if len(ix.anchored) == 0 {
		return
	}
	// Every substring of 1 to anchorRunes runes of the text is a possible
	// anchor, looked up while it still begins one; each anchor tried once.
	text := p.SearchText
	var looked map[*bucket]bool
	for i := range text {
		j := i
		for n := 0; n < anchorRunes && j < len(text); n++ {
			_, w := utf8.DecodeRuneInString(text[j:])
			j += w
			node, ok := ix.anchored[text[i:j]]
			if !ok {
				break
			}
			if b := node.b; b != nil && !looked[b] {
				if looked == nil {
					looked = map[*bucket]bool{}
				}
				looked[b] = true
				tryBucket(b)
			}
			if !node.longer {
				break
			}
		}
	}
}
