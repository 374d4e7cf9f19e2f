package kit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestSplitUnknown(t *testing.T) {
	// "call:x" calls tool x; anything else is text.
	call := func(p string) (string, bool) { return strings.CutPrefix(p, "call:") }
	known := func(n string) bool { return n == "real" }
	for _, tt := range []struct {
		parts         []string
		unknown, rest string
		calls         bool
	}{
		{nil, "[]", "[]", false},
		{[]string{"hi", "call:real"}, "[]", "[hi call:real]", true},
		{[]string{"hi", "call:made_up", "call:real", "bye"}, "[call:made_up]", "[hi call:real bye]", true},
		{[]string{"hi", "call:a", "call:b"}, "[call:a call:b]", "[hi]", false},
	} {
		u, r, c := kit.SplitUnknown(tt.parts, call, known)
		if fmt.Sprint(u) != tt.unknown || fmt.Sprint(r) != tt.rest || c != tt.calls {
			t.Errorf("SplitUnknown(%q) = %q, %q, %v; want %s, %s, %v", tt.parts, u, r, c, tt.unknown, tt.rest, tt.calls)
		}
	}
}
