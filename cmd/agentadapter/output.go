package main

import (
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/agentadapter/agentadapter/termtext"
)

// Every piece of untrusted text the command prints (an upstream's result,
// tool name or error, a model's arguments) goes through termtext: Line for
// a table cell or a one-line message, Block for multi-line text. JSON goes
// through printJSON.

// printJSON writes v as JSON and a newline, indented if indent is set.
//
// encoding/json escapes C0 controls and U+2028/U+2029 but writes C1
// controls (U+009B is a one-rune CSI), bidi overrides and the other runes
// termtext escapes as they are: a terminal acts on them. printJSON escapes
// those too, as \uXXXX, so --json output read on a terminal is safe and
// still decodes to the same values.
func printJSON(w io.Writer, v any, indent bool) error {
	var b []byte
	var err error
	if indent {
		b, err = json.MarshalIndent(v, "", "  ")
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		return err
	}
	b = append(jsonSafe(b), '\n')
	_, err = w.Write(b)
	return err
}

// jsonSafe escapes, in encoded JSON, every non-ASCII rune termtext would
// escape. Outside strings encoded JSON is ASCII, so only string contents
// change, and each to an escape that decodes to the same rune; bytes that
// are not UTF-8 (json.RawMessage passes them) become \ufffd, as
// encoding/json does for strings.
func jsonSafe(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		if b[i] < utf8.RuneSelf {
			out = append(out, b[i])
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out = append(out, `\ufffd`...)
		case !termtext.Safe(string(b[i : i+n])):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}
