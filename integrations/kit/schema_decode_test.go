package kit_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// target is a framework's schema type in miniature: omitempty fields.
type target struct {
	Title    string   `json:"title,omitempty"`
	Maximum  *float64 `json:"maximum,omitempty"`
	Const    any      `json:"const,omitempty"`
	Required []string `json:"required,omitempty"`
}

func TestDecodeKeywords(t *testing.T) {
	raw := func(m map[string]string) map[string]json.RawMessage {
		out := map[string]json.RawMessage{}
		for k, v := range m {
			out[k] = json.RawMessage(v)
		}
		return out
	}
	in := raw(map[string]string{"title": `"T"`, "maximum": `"high"`, "const": `null`, "required": `[]`, "x-vendor": `1`})
	var dst target
	rest, err := kit.DecodeKeywords(&dst, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	// maximum does not fit its field; a null const and an unknown keyword
	// would be dropped; an empty required means nothing.
	if d := cmp.Diff(raw(map[string]string{"maximum": `"high"`, "const": `null`, "x-vendor": `1`}), rest); d != "" {
		t.Errorf("rest (-want +got):\n%s", d)
	}
	if dst.Title != "T" {
		t.Errorf("dst = %+v; want the title", dst)
	}
	if len(in) != 5 {
		t.Errorf("DecodeKeywords modified its input: %v", in)
	}

	// Everything fits: one decode, nothing left over.
	var all target
	rest, err = kit.DecodeKeywords(&all, raw(map[string]string{"title": `"T"`, "maximum": `3`}), nil)
	if err != nil || len(rest) != 0 || all.Maximum == nil || *all.Maximum != 3 {
		t.Errorf("fitting keywords: %+v, rest %v, %v", all, rest, err)
	}

	// The decoder is the caller's: its failures leave keywords over.
	refuse := func([]byte, *target) error { return errors.New("no") }
	var none target
	rest, err = kit.DecodeKeywords(&none, raw(map[string]string{"title": `"T"`}), refuse)
	if err == nil {
		t.Errorf("a decoder that refuses everything: rest %v, want an error from the final decode", rest)
	}
}
