package ledger_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/adapter/ledger"
)

func TestMemoryLedgerRing(t *testing.T) {
	ml := ledger.NewMemory(3)
	for i := range 5 {
		ml.Write(context.Background(), &ledger.Record{CallID: strconv.Itoa(i)})
	}
	var ids []string
	for _, r := range ml.Records() {
		ids = append(ids, r.CallID)
	}
	if diff := cmp.Diff([]string{"2", "3", "4"}, ids); diff != "" || ml.Total() != 5 {
		t.Errorf("ring (-want +got):\n%s total %d", diff, ml.Total())
	}
}

// TestZeroMemory: the zero Memory is a ledger with the default capacity
// (its first Write indexed an empty ring).
func TestZeroMemory(t *testing.T) {
	var m ledger.Memory
	for i := range 3 {
		if err := m.Write(context.Background(), &ledger.Record{Tool: "t" + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if rs := m.Records(); len(rs) != 3 || rs[2].Seq != 3 {
		t.Fatalf("records = %+v", rs)
	}
}
