package toolsearch_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/toolsearch"
)

// naive is the textbook Okapi BM25, computed from scratch for every query
// with no index: the reference the inverted index must agree with.
type naive struct{ docs []toolsearch.Document }

func (n naive) rank(query string, limit int) []toolsearch.Scored {
	const k1, b = toolsearch.DefaultK1, toolsearch.DefaultB
	type bag struct {
		name string
		tf   map[string]float64
		len  float64
	}
	bags := make([]bag, len(n.docs))
	var total float64
	for i, d := range n.docs {
		bg := bag{name: d.Name, tf: map[string]float64{}}
		add := func(s string, w float64) {
			for _, t := range toolsearch.Terms(s) {
				bg.tf[t] += w
				bg.len += w
			}
		}
		add(d.Name, 3)
		add(d.Title, 2)
		add(d.Description, 1)
		for _, a := range d.Args {
			add(a.Name, 2)
			add(a.Description, 1)
		}
		bags[i] = bg
		total += bg.len
	}
	N := float64(len(bags))
	avg := total / N
	q := toolsearch.Terms(query)
	slices.Sort(q)
	q = slices.Compact(q)
	var out []toolsearch.Scored
	for _, bg := range bags {
		var s float64
		for _, t := range q {
			tf := bg.tf[t]
			if tf == 0 {
				continue
			}
			var df float64
			for _, o := range bags {
				if o.tf[t] > 0 {
					df++
				}
			}
			idf := math.Log(1 + (N-df+0.5)/(df+0.5))
			s += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*bg.len/avg))
		}
		if s > 0 {
			out = append(out, toolsearch.Scored{Name: bg.name, Score: s})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Name < out[j].Name
	})
	return out[:min(limit, len(out))]
}

// TestBM25Reference is the differential test of the hand-written ranker:
// on the real tools, after removals and replacements, the inverted index
// and the textbook formula give the same documents in the same order with
// the same scores (to 1e-9), for the labelled queries and random ones.
func TestBM25Reference(t *testing.T) {
	specs := realSpecs(t)
	r := toolsearch.NewBM25(0, 0)
	var ref naive
	for _, s := range specs {
		d := toolsearch.DocumentOf(s)
		r.Add(d)
		ref.docs = append(ref.docs, d)
	}
	// Churn: remove every fifth, replace every seventh with another's text.
	rng := rand.New(rand.NewPCG(1, 2))
	var kept []toolsearch.Document
	for i, d := range ref.docs {
		switch {
		case i%5 == 0:
			r.Remove(d.Name)
		case i%7 == 0:
			o := ref.docs[rng.IntN(len(ref.docs))]
			o.Name = d.Name
			r.Add(o)
			kept = append(kept, o)
		default:
			kept = append(kept, d)
		}
	}
	ref.docs = kept
	if r.Len() != len(kept) {
		t.Fatalf("Len %d, want %d", r.Len(), len(kept))
	}
	var vocab []string
	for _, d := range kept {
		vocab = append(vocab, strings.Fields(d.Description)...)
	}
	var qs []string
	for _, q := range queries(t) {
		qs = append(qs, q.query)
	}
	for range 200 {
		var w []string
		for range 1 + rng.IntN(5) {
			w = append(w, vocab[rng.IntN(len(vocab))])
		}
		qs = append(qs, strings.Join(w, " "))
	}
	for _, q := range qs {
		got, err := r.Rank(context.Background(), q, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := ref.rank(q, 10)
		if len(got) != len(want) {
			t.Errorf("%q: %d results, reference %d", q, len(got), len(want))
			continue
		}
		for i := range got {
			if got[i].Name != want[i].Name || math.Abs(got[i].Score-want[i].Score) > 1e-9 {
				t.Errorf("%q #%d: %s %.12f, reference %s %.12f", q, i, got[i].Name, got[i].Score, want[i].Name, want[i].Score)
				break
			}
		}
	}
}

func TestTerms(t *testing.T) {
	for in, want := range map[string]string{
		"readFile read_file read-file": "read fil read fil read fil",
		"Create new directories":       "creat new directory",
		"created creating creates":     "creat creat creat",
		"listing listed lists":         "list list list",
		"JSONSchema 2020-12 tools":     "jsonschema 2020 12 tool",
		"the of and":                   "",
		"Entities, relations; files!":  "entity relation fil",
	} {
		if got := strings.Join(toolsearch.Terms(in), " "); got != want {
			t.Errorf("Terms(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzTerms(f *testing.F) {
	f.Add("readFile read_file Été ÜBER_großen 東京")
	f.Fuzz(func(t *testing.T, s string) {
		for _, term := range toolsearch.Terms(s) {
			if term == "" || strings.ToLower(term) != term {
				t.Errorf("Terms(%q) has %q", s, term)
			}
		}
	})
}
