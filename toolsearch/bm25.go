package toolsearch

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// BM25 parameters: k1 saturates term frequency, b normalises by document
// length (the usual values, Lucene's and bleve's).
const (
	DefaultK1 = 1.2
	DefaultB  = 0.75
)

// Field weights: a term of the tool's name counts as this many occurrences
// (a BM25F-style boost by repetition), so that a query naming the action
// finds the tool that performs it before one that mentions it.
const (
	weightName  = 3
	weightTitle = 2
	weightArg   = 2
	weightText  = 1
)

// Bounds on what one document and one query may hold: a hostile server's
// huge description costs at most this much.
const (
	maxDocTerms   = 4096
	maxQueryTerms = 64
)

// BM25 is the built-in [Ranker]: Okapi BM25 over an inverted index held in
// memory, with the tokenizer [Terms] describes. Scores are
// sum over the query's distinct terms t of
// idf(t) · tf·(k1+1) / (tf + k1·(1−b+b·len/avglen)), with
// idf(t) = ln(1 + (N−n(t)+0.5)/(n(t)+0.5)). A BM25 is safe for concurrent
// use.
type BM25 struct {
	k1, b float64

	mu     sync.RWMutex
	ids    map[string]int32 // name → document id
	docs   []bdoc           // by id; a removed id is on free
	free   []int32
	post   map[string]map[int32]uint16 // term → id → weighted frequency
	total  int                         // sum of the live documents' lengths
	live   int
	accums sync.Pool // *[]float64, one score per id
}

type bdoc struct {
	name  string
	len   int
	terms []string // distinct, for removal
}

// NewBM25 returns an empty BM25 ranker; k1 and b of zero (or less) mean
// DefaultK1 and DefaultB.
func NewBM25(k1, b float64) *BM25 {
	if k1 <= 0 {
		k1 = DefaultK1
	}
	if b <= 0 {
		b = DefaultB
	}
	return &BM25{k1: k1, b: b, ids: map[string]int32{}, post: map[string]map[int32]uint16{}}
}

// Add indexes doc, replacing any document of the same name.
func (r *BM25) Add(doc Document) {
	tf := map[string]int{}
	n := 0
	add := func(text string, w int) {
		for _, t := range Terms(text) {
			if n >= maxDocTerms {
				return
			}
			tf[t] += w
			n += w
		}
	}
	add(doc.Name, weightName)
	add(doc.Title, weightTitle)
	add(doc.Description, weightText)
	for _, a := range doc.Args {
		add(a.Name, weightArg)
		add(a.Description, weightText)
	}
	terms := make([]string, 0, len(tf))
	for t := range tf {
		terms = append(terms, t)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.remove(doc.Name)
	var id int32
	if k := len(r.free); k > 0 {
		id, r.free = r.free[k-1], r.free[:k-1]
		r.docs[id] = bdoc{name: doc.Name, len: n, terms: terms}
	} else {
		id = int32(len(r.docs))
		r.docs = append(r.docs, bdoc{name: doc.Name, len: n, terms: terms})
	}
	r.ids[doc.Name] = id
	for t, f := range tf {
		p := r.post[t]
		if p == nil {
			p = map[int32]uint16{}
			r.post[t] = p
		}
		p[id] = uint16(min(f, math.MaxUint16))
	}
	r.total += n
	r.live++
}

// Remove drops the document of that name, if indexed.
func (r *BM25) Remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.remove(name)
}

func (r *BM25) remove(name string) {
	id, ok := r.ids[name]
	if !ok {
		return
	}
	d := r.docs[id]
	for _, t := range d.terms {
		p := r.post[t]
		delete(p, id)
		if len(p) == 0 {
			delete(r.post, t)
		}
	}
	r.total -= d.len
	r.live--
	delete(r.ids, name)
	r.docs[id] = bdoc{}
	r.free = append(r.free, id)
}

// Rank returns the best limit documents for query among those keep admits,
// by score, then name. Documents no query term matches are never returned.
func (r *BM25) Rank(ctx context.Context, query string, limit int, keep func(name string) bool) ([]Scored, error) {
	terms := Terms(query)
	if len(terms) > maxQueryTerms {
		terms = terms[:maxQueryTerms]
	}
	slices.Sort(terms)
	terms = slices.Compact(terms)
	if len(terms) == 0 || limit <= 0 {
		return nil, ctx.Err()
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.live == 0 {
		return nil, ctx.Err()
	}
	acc := r.accum()
	defer r.accums.Put(acc)
	scores := *acc
	var touched []int32
	n := float64(r.live)
	avg := float64(r.total) / n
	for _, t := range terms {
		p := r.post[t]
		if len(p) == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(len(p))+0.5)/(float64(len(p))+0.5))
		for id, f := range p {
			tf := float64(f)
			norm := r.k1 * (1 - r.b + r.b*float64(r.docs[id].len)/avg)
			if scores[id] == 0 {
				touched = append(touched, id)
			}
			scores[id] += idf * tf * (r.k1 + 1) / (tf + norm)
		}
		if err := ctx.Err(); err != nil {
			clear(scores)
			return nil, err
		}
	}
	top := make([]Scored, 0, min(limit, len(touched)))
	for _, id := range touched {
		s := Scored{Name: r.docs[id].name, Score: scores[id]}
		scores[id] = 0
		if len(top) == limit && !better(s, top[limit-1]) {
			continue
		}
		if keep != nil && !keep(s.Name) {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, s, func(a, b Scored) int {
			if better(a, b) {
				return -1
			}
			return 1
		})
		if len(top) < limit {
			top = slices.Insert(top, i, s)
		} else {
			copy(top[i+1:], top[i:limit-1])
			top[i] = s
		}
	}
	return top, nil
}

// better orders results: higher score first, then name.
func better(a, b Scored) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Name < b.Name
}

// accum returns a zeroed score slice with room for every id.
func (r *BM25) accum() *[]float64 {
	acc, _ := r.accums.Get().(*[]float64)
	if acc == nil {
		acc = new([]float64)
	}
	if len(*acc) < len(r.docs) {
		*acc = make([]float64, len(r.docs))
	}
	return acc
}

// Len returns the number of indexed documents.
func (r *BM25) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.live
}

// Terms returns the index terms of text as BM25 and the search index see
// them: words split at anything not a letter or digit and at camelCase
// boundaries (readFile, read_file and read-file are the same two words),
// lowercased, English stop words dropped, and light plural and verb
// suffixes and a final e stemmed (files → fil, directories → directory,
// created → creat, listing → list): query and tool meet on the stem.
func Terms(text string) []string {
	var out []string
	start := -1
	var prev rune
	emit := func(end int) {
		if start >= 0 {
			if t := normalize(text[start:end]); t != "" {
				out = append(out, t)
			}
		}
		start = -1
	}
	for i, c := range text {
		switch {
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			emit(i)
		case start >= 0 && unicode.IsUpper(c) && unicode.IsLower(prev):
			emit(i)
			start = i
		case start < 0:
			start = i
		}
		prev = c
	}
	emit(len(text))
	return out
}

func normalize(w string) string {
	w = strings.ToLower(w)
	if stop[w] || utf8.RuneCountInString(w) > 64 {
		return ""
	}
	return stem(w)
}

// stem strips the commonest English inflections and a final e; it only has to map a
// query's word and a description's word to the same term.
func stem(w string) string {
	w = unsuffix(w)
	if n := len(w); n > 3 && w[n-1] == 'e' { // create, created, creating: creat
		w = w[:n-1]
	}
	return w
}

func unsuffix(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	case n > 5 && strings.HasSuffix(w, "ing"):
		return undouble(w[:n-3])
	case n > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed"):
		return undouble(w[:n-2])
	}
	return w
}

// undouble maps "stopp" (stopping) to "stop"; other stems are kept.
func undouble(w string) string {
	if n := len(w); n > 2 && w[n-1] == w[n-2] && !strings.ContainsRune("lsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an and are as at be by can do does for from has have how i in into is it its me my of on or our should that the their then there these this to use used using was we what when where which while who will with you your") {
		stop[w] = true
	}
}
