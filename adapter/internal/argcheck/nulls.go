// Package argcheck holds the executor's argument checks that need nothing
// of adapter: dropping nulls sent for optional properties, refusing
// schemas whose $ref loops would overflow the stack, and phrasing
// jsonschema-go and encoding/json errors for a model. Only adapter imports
// it; adapter wraps what it returns into its *Error as before.
package argcheck

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"

	"github.com/agentadapter/agentadapter/adapter/canonical"
	"github.com/google/jsonschema-go/jsonschema"
)

// A NullDrop treats a null a model sends for an optional parameter as the
// parameter left out. Models very often do (OpenAI's strict mode makes
// every parameter required and nullable, so the model must send null for
// the ones it means to omit), and a schema that says {"type": "boolean"}
// for an optional property refuses it.
//
// The rule, at the top level of the input schema only: a member whose
// value is null, whose property is declared in "properties", is not
// "required", and whose schema does not accept null, is removed before
// the arguments are validated (and before defaults are applied, so a
// default fills it in). The arguments without it are the one value of the
// call: approved, hashed, recorded and handed to the tool. The ledger
// record does not note the dropped key, as it does not note a default
// applied: it holds what the tool ran with. A null for a
// required property, for a property whose schema accepts null
// ({"type": ["boolean", "null"]}, an anyOf with {"type": "null"}), for an
// undeclared property or below the top level is kept and validated as
// before. When it cannot tell whether a property's schema accepts null
// (its schema refers to the root), null is kept.
type NullDrop struct {
	// root is the resolved input schema when it declares an optional
	// property; nil otherwise (nothing to drop).
	root *jsonschema.Schema
	once sync.Once
	// keys names the optional properties whose schema refuses null, found
	// on the first call that sends a null.
	keys map[string]bool
}

// init readies d for the resolved input schema root.
func (d *NullDrop) Init(root *jsonschema.Schema) {
	for name := range root.Properties {
		if !slices.Contains(root.Required, name) {
			d.root = root
			return
		}
	}
}

// drop returns args (one JSON value, white space trimmed) without the
// members the rule removes, in canonical form. Arguments with none come
// back as they are, without allocating when no member is null; arguments
// that are not a valid JSON object come back as they are, for validation
// to report.
func (d *NullDrop) Drop(args []byte) []byte {
	if d.root == nil || !hasNullMember(args) {
		return args
	}
	d.once.Do(d.probe)
	if len(d.keys) == 0 {
		return args
	}
	v, err := canonical.Decode(args) // refuses repeated keys: validation reports them
	if err != nil {
		return args
	}
	m, ok := v.(map[string]any)
	if !ok {
		return args
	}
	n := len(m)
	for k, x := range m {
		if x == nil && d.keys[k] {
			delete(m, k)
		}
	}
	if len(m) == n {
		return args
	}
	b, err := json.Marshal(m) // canonical.JSON's form: sorted keys, numbers' text kept
	if err != nil {
		return args
	}
	return b
}

// probe finds the optional properties whose schema refuses null: it
// validates {name: null} against a schema holding only the root's
// properties and the definitions they may refer to, where nothing but the
// property's own schema applies. A reference to the root ("#") meets an
// object schema there too.
func (d *NullDrop) probe() {
	root := d.root
	shell := &jsonschema.Schema{
		Schema: root.Schema, ID: root.ID, Anchor: root.Anchor, DynamicAnchor: root.DynamicAnchor,
		Type: "object", Defs: root.Defs, Definitions: root.Definitions, Properties: root.Properties,
	}
	// A clone: the resolved input schema is not to be touched.
	rs, err := shell.CloneSchemas().Resolve(nil)
	if err != nil {
		return // a reference the shell cannot follow: keep every null
	}
	keys := make(map[string]bool)
	for name := range root.Properties {
		if !slices.Contains(root.Required, name) && rs.Validate(map[string]any{name: nil}) != nil {
			keys[name] = true
		}
	}
	d.keys = keys
}

// hasNullMember reports whether b may hold a member whose value is null:
// "null" after a colon. It does not allocate; a string holding `: null`
// only costs the slower look.
func hasNullMember(b []byte) bool {
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte("null"))
		if i < 0 {
			return false
		}
		j := off + i - 1
		for j >= 0 && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
			j--
		}
		if j >= 0 && b[j] == ':' {
			return true
		}
		off += i + len("null")
	}
}
