package adapter_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
)

// TestTypedDecodeCaseSensitive: a typed handler gets exactly the properties
// the schema validator saw. With a schema that allows extra properties,
// "Path" is an extra property, not a second spelling of "path"; with the
// inferred schema it is an unknown property and the call is refused.
func TestTypedDecodeCaseSensitive(t *testing.T) {
	type fileArgs struct {
		Path  string `json:"path"`
		Inner struct {
			Mode string `json:"mode"`
		} `json:"inner"`
		Untagged string
	}
	loose := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"path":  {Type: "string"},
		"inner": {Type: "object"},
	}}
	for _, tt := range []struct {
		name   string
		schema *jsonschema.Schema
		args   string
		want   fileArgs // zero with wantKind set
		kind   adapter.Kind
	}{
		{"loose: a second spelling is ignored", loose,
			`{"path":"/tmp/ok","Path":"/etc/passwd"}`, fileArgs{Path: "/tmp/ok"}, ""},
		{"loose: the other order", loose,
			`{"Path":"/etc/passwd","path":"/tmp/ok"}`, fileArgs{Path: "/tmp/ok"}, ""},
		{"loose: only the wrong spelling", loose,
			`{"PATH":"/etc/passwd"}`, fileArgs{}, ""},
		{"loose: nested", loose,
			`{"path":"/tmp/ok","inner":{"mode":"r","MODE":"rw"}}`, fileArgs{Path: "/tmp/ok", Inner: struct {
				Mode string `json:"mode"`
			}{"r"}}, ""},
		{"loose: untagged field by its own name only", loose,
			`{"untagged":"x"}`, fileArgs{}, ""},
		{"inferred: a second spelling is unknown", nil,
			`{"path":"/tmp/ok","Path":"/etc/passwd","inner":{"mode":"r"},"Untagged":""}`, fileArgs{}, adapter.KindArgsInvalid},
		{"inferred: nested second spelling is unknown", nil,
			`{"path":"/tmp/ok","inner":{"mode":"r","Mode":"rw"},"Untagged":""}`, fileArgs{}, adapter.KindArgsInvalid},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got fileArgs
			spec := adapter.MustTool("read", "", func(_ context.Context, a fileArgs) (string, error) {
				got = a
				return "ok", nil
			}, &adapter.ToolOptions{InputSchema: tt.schema, Annotations: adapter.Annotations{ReadOnly: true}})
			e := adapter.NewExecutor(nil, nil)
			_, err := e.Do(context.Background(), &adapter.Request{Spec: spec, Args: json.RawMessage(tt.args)})
			if tt.kind != "" {
				if adapter.KindOf(err) != tt.kind {
					t.Fatalf("Do(%s) = %v, want %s", tt.args, err, tt.kind)
				}
				return
			}
			if err != nil {
				t.Fatalf("Do(%s): %v", tt.args, err)
			}
			if got != tt.want {
				t.Errorf("handler got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestTypedDecodeOverflow: a number too large for its field is refused on
// the general path too (segmentio/encoding, go-sdk's decoder, wraps some
// 64-bit overflows around).
func TestTypedDecodeOverflow(t *testing.T) {
	type big struct {
		U uint64 `json:"u"`
		I int64  `json:"i"`
	}
	loose := &jsonschema.Schema{Type: "object"}
	for _, schema := range []*jsonschema.Schema{nil, loose} {
		var got big
		spec := adapter.MustTool("big", "", func(_ context.Context, a big) (string, error) { got = a; return "ok", nil },
			&adapter.ToolOptions{InputSchema: schema})
		for _, args := range []string{`{"u":21000000000000000000,"i":0}`, `{"u":0,"i":92233720368547758070}`, `{"u":0,"i":-92233720368547758080}`} {
			if _, err := spec.CallDirect(context.Background(), json.RawMessage(args)); adapter.KindOf(err) != adapter.KindArgsInvalid {
				t.Errorf("schema %v: %s: err = %v (handler got %+v), want args_invalid", schema != nil, args, err, got)
			}
		}
		if _, err := spec.CallDirect(context.Background(), json.RawMessage(`{"u":18446744073709551615,"i":-9223372036854775808}`)); err != nil ||
			got != (big{U: 18446744073709551615, I: -9223372036854775808}) {
			t.Errorf("schema %v: the extremes: err %v, got %+v", schema != nil, err, got)
		}
	}
}
