package postgres

import (
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"time"

	"bidradar/pkg/thaitext"
	"bidradar/services/projects/internal/domain"
)

// sampleIndex is the sample with what the planner derives from it, built
// once when the sample is (re)loaded and dropped with it:
//
//   - grams: each trigram code's number of sample rows (the SQL keeps a
//     keyword's rarest trigrams, search_sql.go);
//   - post: each trigram code's sample rows, ascending (posting lists, as
//     the GIN holds them for the table);
//   - terms: the sample rows containing a normalised keyword, as a bitset,
//     found through the posting lists and kept per keyword: searches repeat
//     their keywords, and the sample only changes when it is reloaded.
//
// Counting a criteria was a substring search of every keyword in each of
// the 10 000 titles per query (64 % of the service's CPU under a search
// load at 1 M); it is now an intersection of a few posting lists once per
// keyword, the candidates' substring check, then word-wise AND/OR of
// bitsets. The counts are the same (TestSampleIndexCountsAsScan).
type sampleIndex struct {
	rows  []domain.Project
	total int64 // rows in the table when sampled
	grams map[int32]int32
	post  map[int32][]int32
	words int // uint64 words of a bitset of the rows
	// The rows of each province, method and status (the filters the
	// keyword GIN also holds), and the sorted submission deadlines as
	// DateKey days: a criteria's filters are word-wise ORs and ANDs of
	// these, not a Matcher call per sample row (BenchmarkPlannerEstimate's
	// mix at 10 000 rows: 1.4–1.9 → 0.41–0.46 ms; samples now grow to
	// 50 000 rows).
	provinces, methods, statuses map[string]bitset
	dueDays                      []int64
	rowDue                       []int64 // each row's deadline day, noDue without one

	mu    sync.Mutex
	terms map[string]bitset
}

// maxCachedTerms bounds the keyword cache (each entry is a bitset of the
// sample: 1.25 kB at 10 000 rows), and maxCachedBytes its memory at larger
// samples (6.25 kB an entry at 50 000 rows); when full it starts again.
const (
	maxCachedTerms = 4096
	maxCachedBytes = 8 << 20
)

// maxTerms is the keyword cache's bound for this sample.
func (ix *sampleIndex) maxTerms() int {
	return max(1, min(maxCachedTerms, maxCachedBytes/(8*max(ix.words, 1))))
}

func newSampleIndex(rows []domain.Project, total int64) *sampleIndex {
	ix := &sampleIndex{rows: rows, total: total, words: (len(rows) + 63) / 64,
		grams: make(map[int32]int32, 1<<15), terms: map[string]bitset{}}
	// Two passes over the rows' codes: count, then fill one slab.
	codes := make([][]int32, len(rows))
	all := 0
	for i := range rows {
		codes[i] = thaitext.Trigrams(rows[i].SearchText)
		all += len(codes[i])
		for _, c := range codes[i] {
			ix.grams[c]++
		}
	}
	slab := make([]int32, all)
	ix.post = make(map[int32][]int32, len(ix.grams))
	at := 0
	for c, n := range ix.grams {
		ix.post[c] = slab[at : at : at+int(n)]
		at += int(n)
	}
	for i := range codes {
		for _, c := range codes[i] {
			ix.post[c] = append(ix.post[c], int32(i))
		}
	}
	ix.provinces, ix.methods, ix.statuses = map[string]bitset{}, map[string]bitset{}, map[string]bitset{}
	ix.rowDue = make([]int64, len(rows))
	for i := range rows {
		p := &rows[i]
		ix.rowsOf(ix.provinces, p.ProvinceCode).set(i)
		ix.rowsOf(ix.methods, p.MethodCode).set(i)
		ix.rowsOf(ix.statuses, string(p.Status)).set(i)
		ix.rowDue[i] = noDue
		if p.SubmissionDue != nil {
			ix.rowDue[i] = dueDay(*p.SubmissionDue)
			ix.dueDays = append(ix.dueDays, ix.rowDue[i])
		}
	}
	slices.Sort(ix.dueDays)
	return ix
}

// rowsOf returns m's set for value v, made empty when missing.
func (ix *sampleIndex) rowsOf(m map[string]bitset, v string) bitset {
	b, ok := m[v]
	if !ok {
		b = ix.newSet()
		m[v] = b
	}
	return b
}

// dayNumber is a DateKey (UTC midnight) as a day number, comparable as the
// Matcher compares DateKeys; dueDay is a deadline's. noDue stands for no
// deadline.
func dayNumber(key time.Time) int64 { return key.Unix() / 86400 }

func dueDay(t time.Time) int64 { return dayNumber(domain.DateKey(t)) }

const noDue = math.MinInt64

// anyOf is the rows holding one of vals in a field's sets (nil: no
// condition on the field).
func (ix *sampleIndex) anyOf(m map[string]bitset, vals []string) bitset {
	if len(vals) == 0 {
		return nil
	}
	out := ix.newSet()
	for _, v := range vals {
		if b, ok := m[v]; ok {
			for i := range out {
				out[i] |= b[i]
			}
		}
	}
	return out
}

// bitset is a set of sample rows.
type bitset []uint64

func (b bitset) set(i int)             { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) has(i int) bool        { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (ix *sampleIndex) newSet() bitset { return make(bitset, ix.words) }

func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// countAnd is the size of b ∩ o.
func (b bitset) countAnd(o bitset) int {
	n := 0
	for i, w := range b {
		n += bits.OnesCount64(w & o[i])
	}
	return n
}

// each calls f with every row of b, ascending.
func (b bitset) each(f func(i int)) {
	for wi, w := range b {
		for w != 0 {
			f(wi<<6 + bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
}

// rowsWith returns the sample rows whose text contains the normalised
// keyword term (shared: callers must not modify it).
func (ix *sampleIndex) rowsWith(term string) bitset {
	ix.mu.Lock()
	b, ok := ix.terms[term]
	ix.mu.Unlock()
	if ok {
		return b
	}
	b = ix.findRows(term)
	ix.mu.Lock()
	if len(ix.terms) >= ix.maxTerms() {
		ix.terms = map[string]bitset{}
	}
	ix.terms[term] = b
	ix.mu.Unlock()
	return b
}

// findRows finds the rows containing term: the rows holding all its
// trigrams (3+ characters) or one trigram starting with it (2 characters),
// each checked for the substring; every row for a single character.
func (ix *sampleIndex) findRows(term string) bitset {
	out := ix.newSet()
	check := func(i int32) {
		if strings.Contains(ix.rows[i].SearchText, term) {
			out.set(int(i))
		}
	}
	rs := []rune(term)
	switch {
	case len(rs) >= 3:
		codes := thaitext.TermTrigrams(term)
		lists := make([][]int32, 0, len(codes))
		for _, c := range codes {
			p := ix.post[c]
			if len(p) == 0 {
				return out
			}
			lists = append(lists, p)
		}
		slices.SortFunc(lists, func(a, b []int32) int { return len(a) - len(b) })
		cand := slices.Clone(lists[0])
		for _, l := range lists[1:] {
			if cand = intersect(cand, l); len(cand) == 0 {
				return out
			}
		}
		for _, i := range cand {
			check(i)
		}
	case len(rs) == 2:
		seen := ix.newSet()
		for _, c := range thaitext.PairTrigrams(rs[0], rs[1]) {
			for _, i := range ix.post[c] {
				if !seen.has(int(i)) {
					seen.set(int(i))
					check(i)
				}
			}
		}
	default:
		for i := range ix.rows {
			check(int32(i))
		}
	}
	return out
}

// intersect keeps the elements of a (ascending) that are in b (ascending),
// in place.
func intersect(a, b []int32) []int32 {
	out := a[:0]
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) {
			break
		}
		if b[j] == x {
			out = append(out, x)
		}
	}
	return out
}

// count counts, over the sample, the rows each plan would read or find (t
// is c.Terms()): what a scan of every row with domain.Matcher counts
// (countSampleScan in the tests).
func (ix *sampleIndex) count(c domain.Criteria, t domain.Terms) sampleCounts {
	n := len(ix.rows)
	s := sampleCounts{rows: n, termHits: make([]int, len(t.All))}
	if n == 0 {
		return s
	}
	// The keyword part: nil while it allows every row.
	var kw bitset
	and := func(b bitset) {
		if kw == nil {
			kw = slices.Clone(b)
			return
		}
		for i := range kw {
			kw[i] &= b[i]
		}
	}
	all := make([]bitset, len(t.All))
	for j, k := range t.All {
		all[j] = ix.rowsWith(k)
		and(all[j])
	}
	var anyRows bitset
	if len(t.Any) > 0 {
		anyRows = ix.newSet()
		for _, k := range t.Any {
			b := ix.rowsWith(k)
			for i := range anyRows {
				anyRows[i] |= b[i]
			}
		}
		and(anyRows)
	}
	if len(t.None) > 0 {
		if kw == nil {
			kw = ix.newSet()
			for i := range n {
				kw.set(i)
			}
		}
		for _, k := range t.None {
			b := ix.rowsWith(k)
			for i := range kw {
				kw[i] &^= b[i]
			}
		}
	}

	// The keyword GIN indexes also hold province, status and method
	// (btree_gin, migration 3): a bitmap reads the rows matching the driving
	// keyword AND those filters.
	var inFilters bitset // nil: no such filter
	for _, b := range []bitset{ix.anyOf(ix.provinces, c.Provinces), ix.anyOf(ix.methods, c.Methods), ix.anyOf(ix.statuses, c.Statuses)} {
		switch {
		case b == nil:
		case inFilters == nil:
			inFilters = b
		default:
			for i := range inFilters {
				inFilters[i] &= b[i]
			}
		}
	}

	// The whole criteria: the rest of it on the rows of the keyword part
	// and those filters (the Matcher checks them again, cheaply).
	rest := c
	rest.Keyword, rest.AllOf, rest.AnyOf, rest.NoneOf = "", nil, nil, nil
	cand := kw
	if inFilters != nil {
		if cand == nil {
			cand = inFilters
		} else {
			for i := range cand {
				cand[i] &= inFilters[i]
			}
		}
	}
	onlyIndexed := rest
	onlyIndexed.Provinces, onlyIndexed.Methods, onlyIndexed.Statuses = nil, nil, nil
	// A deadline range is the one other condition counted without the
	// Matcher: its days are sorted (and kept per row).
	dueFrom, dueTo, due := c.DueRange()
	fromDay, toDay := dayNumber(dueFrom), dayNumber(dueTo)
	if due {
		lo, _ := slices.BinarySearch(ix.dueDays, fromDay)
		hi, _ := slices.BinarySearch(ix.dueDays, toDay+1)
		s.dueHits = max(hi-lo, 0)
	}
	onlyDue := onlyIndexed
	onlyDue.DueFrom, onlyDue.DueTo, onlyDue.ClosingWithin = nil, nil, 0
	m := domain.NewMatcher(rest)
	switch {
	case onlyIndexed.Unfiltered() && cand == nil:
		s.hits = n
	case onlyIndexed.Unfiltered():
		s.hits = cand.count()
	case onlyDue.Unfiltered() && cand == nil:
		s.hits = s.dueHits
	case onlyDue.Unfiltered():
		cand.each(func(i int) {
			if d := ix.rowDue[i]; d != noDue && d >= fromDay && d <= toDay {
				s.hits++
			}
		})
	case cand == nil:
		for i := range ix.rows {
			if m.Match(&ix.rows[i]) {
				s.hits++
			}
		}
	default:
		cand.each(func(i int) {
			if m.Match(&ix.rows[i]) {
				s.hits++
			}
		})
	}

	hits := func(b bitset) int {
		if inFilters == nil {
			return b.count()
		}
		return b.countAnd(inFilters)
	}
	for j := range all {
		s.termHits[j] = hits(all[j])
	}
	if anyRows != nil {
		s.anyHits = hits(anyRows)
	}

	// The single province a filter walk leads with (every row without one).
	s.walkHits = n
	if len(c.Provinces) == 1 {
		s.walkHits = 0
		if b, ok := ix.provinces[c.Provinces[0]]; ok {
			s.walkHits = b.count()
		}
	}
	return s
}
