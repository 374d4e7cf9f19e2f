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
