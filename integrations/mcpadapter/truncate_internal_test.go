package mcpadapter

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTruncate: text from a peer quoted in an error is bounded and stays
// valid UTF-8 where the bound falls inside a character (before, a URI or
// an authorization server's answer cut there left half a rune).
func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"short", "abc", 5, "abc"},
		{"exact", "abcde", 5, "abcde"},
		{"ascii", "abcdef", 5, "abcde…"},
		{"on a boundary", "ab世界", 5, "ab世…"},
		{"inside a rune", "ab世界", 4, "ab…"},
		{"inside the first rune", "世界", 2, "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := truncate(tc.in, tc.n)
			if got != tc.want || !utf8.ValidString(got) {
				t.Errorf("truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
			}
		})
	}
	uri := "ui://app/" + strings.Repeat("é", 200)
	if got := clip(uri); !utf8.ValidString(got) || len(got) > 256+len("…") {
		t.Errorf("clip of a %d-byte URI = %d bytes, valid UTF-8 %v", len(uri), len(got), utf8.ValidString(got))
	}
}
