package adapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
)

type sizeRow struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

type sizeIn struct {
	Note string    `json:"note"`
	Rows []sizeRow `json:"rows"`
}

// sizeArgs returns arguments of about n bytes: a short note and as many
// rows as fit, the shape of a batch a model hands a tool.
func sizeArgs(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"note":"a batch of rows","rows":[`)
	for i := 0; b.Len() < n-40; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"row number %d"}`, i, i)
	}
	b.WriteString("]}")
	return json.RawMessage(b.String())
}

// BenchmarkArgSize: arguments of 1 KiB, 100 KiB and 1 MiB, from the bare
// decode of them into the handler's type (impl=bare, the floor) to a call
// through the executor of a typed tool (its strict decoder) and of a raw
// tool with the same schema (generic decode and jsonschema-go, as imported
// tools get). The executor's ledger discards records (ledger hashing is
// measured in BenchmarkOverhead); the handler returns a short text.
func BenchmarkArgSize(b *testing.B) {
	count := func(_ context.Context, in sizeIn) (string, error) { return fmt.Sprint(len(in.Rows)), nil }
	typed := adapter.MustTool("count", "counts rows", count, &adapter.ToolOptions{Output: adapter.OutputText})
	var schema jsonschema.Schema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"note":{"type":"string"},"rows":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}},"required":["id","name"],"additionalProperties":false}}},"required":["note","rows"],"additionalProperties":false}`), &schema); err != nil {
		b.Fatal(err)
	}
	raw := adapter.MustRawTool("countraw", "counts rows", &schema, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		var in sizeIn
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		return adapter.TextResult(fmt.Sprint(len(in.Rows))), nil
	}, nil)
	e := adapter.NewExecutor(catalog{typed, raw}, &adapter.ExecutorOptions{Ledger: discardLedger{}, MaxArgBytes: -1})
	defer e.Close()
	ctx := context.Background()
	for _, size := range []struct {
		name string
		n    int
	}{{"1KiB", 1 << 10}, {"100KiB", 100 << 10}, {"1MiB", 1 << 20}} {
		args := sizeArgs(size.n)
		var want sizeIn
		if err := json.Unmarshal(args, &want); err != nil {
			b.Fatal(err)
		}
		rows := fmt.Sprint(len(want.Rows))
		impls := []struct {
			name string
			call func() (string, error)
		}{
			{"bare", func() (string, error) {
				var in sizeIn
				if err := json.Unmarshal(args, &in); err != nil {
					return "", err
				}
				return count(ctx, in)
			}},
			{"typed", func() (string, error) {
				r, err := e.Call(ctx, "count", args)
				return r.Text(), err
			}},
			{"raw", func() (string, error) {
				r, err := e.Call(ctx, "countraw", args)
				return r.Text(), err
			}},
		}
		for _, impl := range impls {
			b.Run("size="+size.name+"/impl="+impl.name, func(b *testing.B) {
				if got, err := impl.call(); err != nil || got != rows {
					b.Fatalf("got %q, %v; want %s", got, err, rows)
				}
				b.SetBytes(int64(len(args)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := impl.call(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
