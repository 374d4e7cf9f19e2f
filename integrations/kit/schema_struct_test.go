package kit_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// mini is a framework's schema struct in miniature, in the style of
// invopop/jsonschema: a field per keyword, ordered properties, extras
// marshaled inline. It has no field for "$ref" or "not".
type mini struct {
	Type       string           `json:"type,omitempty"`
	Const      any              `json:"const,omitempty"`
	Enum       []any            `json:"enum,omitempty"`
	Items      *mini            `json:"items,omitempty"`
	AnyOf      []*mini          `json:"anyOf,omitempty"`
	Defs       map[string]*mini `json:"$defs,omitempty"`
	Properties *ordered         `json:"properties,omitempty"`
	Extras     map[string]any   `json:"-"`
}

func (m *mini) MarshalJSON() ([]byte, error) {
	type plain mini
	b, err := json.Marshal((*plain)(m))
	if err != nil || len(m.Extras) == 0 {
		return b, err
	}
	x, err := json.Marshal(m.Extras)
	if err != nil {
		return nil, err
	}
	if string(b) == "{}" {
		return x, nil
	}
	return append(append(b[:len(b)-1], ','), x[1:]...), nil
}

// ordered is an ordered map whose JSON decoder makes it ready for Set.
type ordered struct {
	keys []string
	m    map[string]*mini
}

func (o *ordered) UnmarshalJSON([]byte) error { o.m = map[string]*mini{}; return nil }

func (o *ordered) Set(k string, v *mini) { o.keys = append(o.keys, k); o.m[k] = v }

func (o *ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(o.m[k])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func TestSchemaStruct(t *testing.T) {
	setExtras := func(m *mini, x map[string]any) { m.Extras = x }
	for _, tt := range []struct{ name, in, want string }{
		{"property order kept", `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}`,
			`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}`},
		{"big integers keep their text", `{"const":12345678901234567890,"enum":[1.50,98765432109876543210]}`,
			`{"const":12345678901234567890,"enum":[1.50,98765432109876543210]}`},
		{"null const to extras", `{"const":null}`, `{"const":null}`},
		{"definitions become $defs", `{"definitions":{"x":{"type":"string"}},"$ref":"#/definitions/x"}`,
			`{"$defs":{"x":{"type":"string"}},"$ref":"#/$defs/x"}`},
		{"tuple items to extras", `{"items":[{"type":"string"}]}`, `{"items":[{"type":"string"}]}`},
		{"a subschema with no field to extras", `{"anyOf":[{"not":{"type":"string","x-v":1}}]}`,
			`{"anyOf":[{"not":{"type":"string","x-v":1}}]}`},
		{"a value that does not fit its field", `{"type":["string","null"],"items":{"type":"string"}}`,
			`{"items":{"type":"string"},"type":["string","null"]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := kit.SchemaStruct([]byte(tt.in), nil, setExtras)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestSchemaStructErrors(t *testing.T) {
	for _, in := range []string{`[]`, `{"properties":{"a":[]}}`, `{"anyOf":[{"items":1}]}`} {
		if _, err := kit.SchemaStruct[mini]([]byte(in), nil, nil); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}

func TestSchemaStructBool(t *testing.T) {
	decode := func(b []byte, m *mini) error {
		if string(b) == "false" {
			m.Type = "never"
			return nil
		}
		return json.Unmarshal(b, m)
	}
	s, err := kit.SchemaStruct([]byte(`{"items":false}`), decode, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Items == nil || s.Items.Type != "never" {
		t.Errorf("items = %+v, want the decoder's false schema", s.Items)
	}
}
