package kittest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit/kittest"
)

var update = flag.Bool("update", false, "rewrite "+kittest.GoldenFile)

// TestGolden renders every case with adapter.Render and compares the text
// with the golden every integration's test also reads.
func TestGolden(t *testing.T) {
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	got := map[string]string{}
	for _, c := range kittest.Cases() {
		text, err := kittest.Expected(context.Background(), exec, c)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		got[c.Name] = text
	}
	if *update {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(got); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(kittest.GoldenFile, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := kittest.Golden()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("model text (-golden +got); run go test ./integrations/kit/kittest -update if intended:\n%s", diff)
	}
	// The rules the golden must show, so that -update cannot bless a
	// regression unseen.
	for name, check := range map[string]func(string) bool{
		"empty":           func(s string) bool { return s == "" },
		"string_markup":   func(s string) bool { return s == "a <b> & \"c\"\nline 2" },
		"string_list":     func(s string) bool { return s == "alpha\n<beta>\ngamma & delta" },
		"empty_list":      func(s string) bool { return s == `{"result":[]}` },
		"nil_optional":    func(s string) bool { return s == `{"result":null}` },
		"structured_only": func(s string) bool { return strings.Contains(s, `"<sunny> & warm"`) },
		"object":          func(s string) bool { return s == `{"city":"<Saint-Malo>","temp_c":12}` },
		"binary_300k":     func(s string) bool { return len(s) < 200 && strings.Contains(s, "307200 bytes") },
		"error": func(s string) bool {
			return strings.Contains(s, `"kind":"tool_error"`) && strings.Contains(s, "<full> &")
		},
	} {
		if !check(got[name]) {
			t.Errorf("%s renders as %q, which breaks its rule", name, got[name])
		}
	}
}
