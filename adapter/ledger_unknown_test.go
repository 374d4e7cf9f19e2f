package adapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/registry"
)

// A call to a tool the caller cannot reach has one record, whether the
// executor looks the name up (Do) or the integration knows it is not
// offered (Unknown), and a flood of long names keeps the records small.
func TestUnknownToolRecorded(t *testing.T) {
	ctx := context.Background()
	reg := registry.New()
	hidden, err := adapter.NewRawTool("hidden", "a tool the integration does not offer", &jsonschema.Schema{Type: "object"},
		func(context.Context, json.RawMessage) (*adapter.Result, error) {
			t.Error("Unknown ran the tool")
			return adapter.TextResult("ran"), nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(hidden); err != nil {
		t.Fatal(err)
	}
	l := ledger.NewMemory(0)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: l})
	long := strings.Repeat("x", 100000)
	secretArgs := json.RawMessage(`{"token":"s3cret","q":1}`)
	_, doErr := exec.Do(ctx, &adapter.Request{Tool: "made_up", Args: secretArgs, Integration: "test"})
	unk := exec.Unknown(ctx, &adapter.Request{Tool: "hidden", Spec: hidden, Integration: "test"})
	flood := exec.Unknown(ctx, &adapter.Request{Tool: long, Args: json.RawMessage(`{}`), Integration: "test"})
	if err := exec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{doErr, unk, flood} {
		if adapter.KindOf(err) != adapter.KindNotFound {
			t.Errorf("error %v: want not_found", err)
		}
	}
	if p, ok := adapter.ModelPayload(unk); !ok || !strings.Contains(p, "not_found") {
		t.Errorf("Unknown's payload %q, %v: want the not_found payload", p, ok)
	}
	recs := l.Records()
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3: %+v", len(recs), recs)
	}
	for i, want := range []string{"made_up", "hidden"} {
		if r := recs[i]; r.Tool != want || r.Outcome != string(adapter.KindNotFound) || r.Integration != "test" || r.CallID == "" {
			t.Errorf("record %d = %+v; want tool %s, not_found", i, r, want)
		}
	}
	if strings.Contains(string(recs[0].Args), "s3cret") {
		t.Errorf("the unknown call's arguments were recorded unredacted: %s", recs[0].Args)
	}
	if r := recs[2]; len(r.Tool) > 200 || len(r.Message) > 300 || r.Outcome != string(adapter.KindNotFound) {
		t.Errorf("the flood's record: tool %d bytes, message %d bytes; want both bounded", len(r.Tool), len(r.Message))
	}
}

// A made-up name cut or malformed is recorded as valid UTF-8, so that the
// record's hash survives a database column and a JSON export.
func TestUnknownToolNameUTF8(t *testing.T) {
	ctx := context.Background()
	l := ledger.NewMemory(0)
	exec := adapter.NewExecutor(registry.New(), &adapter.ExecutorOptions{Ledger: l})
	for _, name := range []string{strings.Repeat("é", 100), "bad\xffname", "x" + strings.Repeat("\U0001F600", 40)} {
		nf := exec.Unknown(ctx, &adapter.Request{Tool: name})
		if !utf8.ValidString(nf.Tool) || !utf8.ValidString(nf.Message) {
			t.Errorf("Unknown(%q): tool %q, message %q; want valid UTF-8", name, nf.Tool, nf.Message)
		}
	}
	if err := exec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := adapter.WriteLedgerJSONL(&buf, l.Query(ctx, ledger.Query{})); err != nil {
		t.Fatal(err)
	}
	if last, err := adapter.VerifyLedgerJSONL(&buf, ledger.Head{}); err != nil || last.Seq != 3 {
		t.Errorf("the export of the records verifies to %v, %v; want record 3, nil", last, err)
	}
}
