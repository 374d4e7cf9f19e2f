// Package rendertext holds the text pieces of what a model reads of a tool
// result: media described by kind, MIME type and size, long text cut at a
// character boundary, JSON without HTML escaping. Only adapter imports it
// (adapter.Render decides the policy; this package only writes).
package rendertext

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Describe writes "[kind uri (mime, N bytes, note)]", leaving out what is
// empty.
func Describe(b *strings.Builder, kind, uri, mime string, size int64, note string) {
	b.WriteByte('[')
	b.WriteString(kind)
	if uri != "" {
		b.WriteByte(' ')
		b.WriteString(uri)
	}
	Details(b, "", mime, size, note)
	b.WriteByte(']')
}

// Details writes " (a, b, c)" of the non-empty fields, or nothing; a
// negative size is left out.
func Details(b *strings.Builder, name, mime string, size int64, note string) {
	open := false
	add := func(s string) {
		if s == "" {
			return
		}
		if open {
			b.WriteString(", ")
		} else {
			b.WriteString(" (")
			open = true
		}
		b.WriteString(s)
	}
	add(name)
	add(mime)
	if size >= 0 {
		add(bytesText(size))
	}
	add(note)
	if open {
		b.WriteByte(')')
	}
}

func bytesText(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// Cut writes text up to limit bytes (limit > 0), cut at a character
// boundary and the cut said.
func Cut(b *strings.Builder, text string, limit int) {
	if len(text) <= limit {
		b.WriteString(text)
		return
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	b.WriteString(text[:cut])
	b.WriteString("\n[… cut: ")
	b.WriteString(strconv.Itoa(cut))
	b.WriteString(" of ")
	b.WriteString(strconv.Itoa(len(text)))
	b.WriteString(" bytes shown]")
}

// MarshalNoEscape is json.Marshal without HTML escaping: what a model reads
// keeps <, > and & as they are.
func MarshalNoEscape(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || !bytes.Contains(b, []byte(`\u00`)) {
		return b, err // the common case: nothing was escaped
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	return out[:len(out)-1], nil // Encode ends with a newline
}
