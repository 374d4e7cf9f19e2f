package adaptertest_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/adaptertest"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

func TestMemoryLedger(t *testing.T) {
	adaptertest.TestLedger(t, func(t *testing.T) (ledger.Ledger, func() []ledger.Record) {
		l := ledger.NewMemory(1000)
		return l, l.Records
	})
}

func TestJSONLLedger(t *testing.T) {
	adaptertest.TestLedger(t, func(t *testing.T) (ledger.Ledger, func() []ledger.Record) {
		path := filepath.Join(t.TempDir(), "ledger.jsonl")
		l, err := ledger.OpenJSONL(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l, func() []ledger.Record { return readJSONL(t, path) }
	})
}

func readJSONL(t *testing.T, path string) []ledger.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []ledger.Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r ledger.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMemoryCache(t *testing.T) {
	for _, size := range []int{100, 1000} { // one shard, many shards
		adaptertest.TestCache(t, func(t *testing.T) adapter.Cache { return adapter.NewMemoryCache(size, time.Hour) })
	}
}

func TestMemoryLedgerQuery(t *testing.T) {
	newDB := func(t *testing.T) adaptertest.Opener[ledger.Ledger] {
		l := ledger.NewMemory(1000)
		return func() ledger.Ledger { return l }
	}
	adaptertest.TestLedgerQuery(t, newDB)
	adaptertest.TestLedgerChain(t, newDB)
	adaptertest.TestLedgerReplicas(t, newDB)
}

func TestMemoryReplicas(t *testing.T) {
	adaptertest.TestCacheReplicas(t, func(t *testing.T) adaptertest.Opener[adapter.Cache] {
		c := adapter.NewMemoryCache(100, time.Hour)
		return func() adapter.Cache { return c }
	})
}
