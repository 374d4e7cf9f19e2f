package termtext_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentadapter/agentadapter/termtext"
)

func TestLine(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "hello, world", "hello, world"},
		{"scripts stay", "héllo 世界 مرحبا 👩‍💻", "héllo 世界 مرحبا 👩‍💻"},
		{"backslash stays", `C:\tmp\n`, `C:\tmp\n`},
		{"newline and tab", "a\nb\tc", `a\nb\tc`},
		{"escape sequence", "\x1b[2J\x1b[31mred", `\x1b[2J\x1b[31mred`},
		{"osc title", "\x1b]0;pwned\a", `\x1b]0;pwned\a`},
		{"osc 8 link", "\x1b]8;;https://evil.example\x1b\\docs\x1b]8;;\x1b\\", `\x1b]8;;https://evil.example\x1b\docs\x1b]8;;\x1b\`},
		{"carriage return", "ok\rFAIL", `ok\rFAIL`},
		{"nul and del", "a\x00b\x7f", `a\x00b\x7f`},
		{"c1 csi", "a\u009b31mb", `a\x9b31mb`},
		{"bidi override", "file\u202etxt.exe", `file\u202etxt.exe`},
		{"bidi isolate", "\u2066x\u2069", `\u2066x\u2069`},
		{"zero width space", "rm\u200b -rf", `rm\u200b -rf`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"invalid utf-8", "a\xffb\xc3", `a\xffb\xc3`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := termtext.Line(tc.in); got != tc.want {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestBlock(t *testing.T) {
	in := "line one\n\tline two\r\n\x1b[1Aline three\u202e"
	want := "line one\n\tline two\\r\n\\x1b[1Aline three\\u202e"
	if got := termtext.Block(in); got != want {
		t.Errorf("Block = %q, want %q", got, want)
	}
}

func TestSafe(t *testing.T) {
	if !termtext.Safe("plain 世界") || termtext.Safe("a\x1b") || termtext.Safe("a\n") || termtext.Safe("\xff") {
		t.Error("Safe disagrees with Line")
	}
}

func TestNoAllocWhenSafe(t *testing.T) {
	s := strings.Repeat("safe text 世界 ", 20)
	if n := testing.AllocsPerRun(100, func() { _ = termtext.Line(s) }); n != 0 {
		t.Errorf("Line of safe text allocates %v times, want 0", n)
	}
}

// FuzzLine checks that no output carries a byte a terminal acts on, and
// that safe input comes back unchanged.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "abc", "\x1b[31m", "\u202e", "\xff\xfe", "a\r\nb", "\u009b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{termtext.Line(s), termtext.Block(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("output %q is not UTF-8", out)
			}
			for _, r := range out {
				if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)) {
					t.Fatalf("output %q carries %U", out, r)
				}
			}
		}
		if strings.ContainsAny(termtext.Line(s), "\n\t") {
			t.Fatalf("Line(%q) keeps a newline or tab", s)
		}
		if termtext.Safe(s) != (termtext.Line(s) == s) {
			t.Fatalf("Safe(%q) = %v, Line = %q", s, termtext.Safe(s), termtext.Line(s))
		}
	})
}
