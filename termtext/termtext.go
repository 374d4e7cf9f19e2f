// Package termtext makes untrusted text safe to write to a terminal.
//
//	fmt.Fprintln(os.Stdout, termtext.Line(toolName))  // one table cell, one line
//	fmt.Fprint(os.Stdout, termtext.Block(resultText)) // keeps newlines and tabs
//
// Text that comes from an upstream server, a model or a client (a tool's
// result, an error message, a tool name, an argument) can carry bytes a
// terminal obeys rather than shows: ESC and CSI sequences that move the
// cursor, clear the screen or retitle the window, OSC 8 hyperlinks whose
// target differs from their text, a carriage return that overwrites what
// the line said, C1 controls (U+0080–U+009F, U+009B is a one-rune CSI),
// and Unicode bidirectional overrides that make the screen show text in
// another order than it is (a "Trojan Source" file name). Line and Block
// rewrite each of them as a visible escape, in the spirit of
// strconv.QuoteToGraphic, and leave every other rune as it is, so text in
// any script stays readable.
//
// The escapes are Go's: \x1b, \r, \u202e, and \ufffd's stand-in \x.. for
// each byte that is not UTF-8. A backslash itself is left alone, so text
// that was safe is printed unchanged.
package termtext

import (
	"strings"
	"unicode/utf8"
)

// Line returns s with every control character escaped, newlines and tabs
// included: the result is one line, fit for a table cell or a log field.
func Line(s string) string { return escape(s, false) }

// Block returns s with every control character escaped except newline and
// tab: multi-line text keeps its shape and nothing in it moves the cursor
// back over what was printed.
func Block(s string) string { return escape(s, true) }

// Safe reports whether s prints as it is: Line(s) == s.
func Safe(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unsafe(r, false) {
			return false
		}
		i += n
	}
	return true
}

func escape(s string, keepLines bool) string {
	// Most text is safe: return it without allocating.
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unsafe(r, keepLines) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
		case unsafe(r, keepLines):
			writeEscape(&b, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

const hex = "0123456789abcdef"

// unsafe reports whether a terminal could act on r rather than show it.
func unsafe(r rune, keepLines bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !keepLines
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true // C0, DEL, C1
	}
	return bidi(r) || invisible(r)
}

// bidi reports the explicit directional formatting characters (Unicode
// UAX #9): embeddings, overrides, isolates and the marks.
func bidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// invisible reports format characters that render as nothing and so can
// hide where one word ends (zero-width space, joiners stay: scripts and
// emoji need them), the line and paragraph separators some terminals break
// on, and the byte-order mark.
func invisible(r rune) bool {
	return r == 0x200b || r == 0x2028 || r == 0x2029 || r == 0xfeff
}

func writeEscape(b *strings.Builder, r rune) {
	switch r {
	case '\a':
		b.WriteString(`\a`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	case '\v':
		b.WriteString(`\v`)
	default:
		switch {
		case r < 0x100:
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
		default:
			b.WriteString(`\u`)
			for s := 12; s >= 0; s -= 4 {
				b.WriteByte(hex[(r>>s)&0xf])
			}
		}
	}
}
