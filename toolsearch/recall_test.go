package toolsearch_test

import (
	"context"
	"slices"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/agentadapter/agentadapter/toolsearch"
)

// recallFloor is the least recall@5 the labelled queries may reach at
// every catalog size (the goal of issue #28 is 0.9).
const recallFloor = 0.9

func newIndex(tb testing.TB, specs []*adapter.Spec) (*registry.Registry, *toolsearch.Index) {
	tb.Helper()
	reg := registry.New()
	if err := reg.Register(specs...); err != nil {
		tb.Fatal(err)
	}
	ix, err := toolsearch.New(reg, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(ix.Close)
	return reg, ix
}

// recall is the mean, over qs, of the share of each query's expected
// tools found in the top 5; misses lists the queries that missed one.
func recall(tb testing.TB, ix *toolsearch.Index, qs []labelled) (float64, []string) {
	var sum float64
	var misses []string
	for _, q := range qs {
		hits, err := ix.Search(context.Background(), q.query, 5, nil)
		if err != nil {
			tb.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Spec.Name)
		}
		found := 0
		for _, w := range q.want {
			if slices.Contains(got, w) {
				found++
			}
		}
		sum += float64(found) / float64(len(q.want))
		if found < len(q.want) {
			misses = append(misses, q.query+" → "+joinNames(got))
		}
	}
	return sum / float64(len(qs)), misses
}

func joinNames(ns []string) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// TestRecall measures recall@5 of the labelled queries (at least 100) on
// the real tools alone and among near-duplicates at 1,000 and 10,000.
func TestRecall(t *testing.T) {
	qs := queries(t)
	if len(qs) < 100 {
		t.Fatalf("%d labelled queries, want at least 100", len(qs))
	}
	for _, n := range []int{0, 1000, 10000} {
		specs := realSpecs(t)
		if n > 0 {
			specs = nearDuplicates(t, n)
		}
		_, ix := newIndex(t, specs)
		r, misses := recall(t, ix, qs)
		t.Logf("%d tools: recall@5 %.3f over %d queries", len(specs), r, len(qs))
		if r < recallFloor {
			for _, m := range misses {
				t.Logf("miss: %s", m)
			}
			t.Errorf("%d tools: recall@5 %.3f, want at least %.2f", len(specs), r, recallFloor)
		}
	}
}
