// Package canonical gives JSON values one byte form: object keys sorted,
// no white space, strings and numbers as encoding/json writes them (numbers
// keep their text: 10 and 10.0 differ). Approval tickets, cache keys and
// the ledger hash this form, so two spellings of the same arguments are
// one value.
package canonical

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Hash returns the hex SHA-256 of [JSON] of b, a hash of a JSON value that ignores key order and
// white space: {"a":1,"b":2} and { "b":2, "a":1 } hash the same. Numbers
// keep their text, so 10 and 10.0 differ.
func Hash(b []byte) (string, error) {
	c, err := JSON(b)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), nil
}

// JSON re-encodes a JSON value with sorted keys and no white space. An
// object that repeats a key has no canonical form: it is an error
// ([*DuplicateKeyError]).
// Empty input is the empty object. Input that is already canonical (as
// validated arguments with defaults applied are) is returned as is.
func JSON(args []byte) ([]byte, error) {
	if len(args) == 0 {
		return []byte("{}"), nil
	}
	if isCanonical(args) {
		return args, nil
	}
	if len(bytes.TrimSpace(args)) == 0 {
		return []byte("{}"), nil
	}
	v, err := Decode(args)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v) // maps marshal with sorted keys
}

// isCanonical reports whether b is one JSON value exactly as JSON would
// encode it: no white space, object keys in increasing order, no
// duplicate keys, and nothing json.Marshal would write differently (it
// answers false for any escape, HTML-sensitive or non-ASCII byte, and
// leaves those to the slow path). It does not allocate.
func isCanonical(b []byte) bool {
	c := canonScanner{b: b}
	return c.value(0) && c.i == len(b)
}

type canonScanner struct {
	b []byte
	i int
}

// maxCanonDepth bounds the recursion; deeper values take the slow path.
const maxCanonDepth = 64

func (c *canonScanner) value(depth int) bool {
	if c.i >= len(c.b) || depth > maxCanonDepth {
		return false
	}
	switch ch := c.b[c.i]; {
	case ch == '{':
		c.i++
		if c.i < len(c.b) && c.b[c.i] == '}' {
			c.i++
			return true
		}
		var prev []byte
		for first := true; ; first = false {
			start := c.i
			if !c.str() {
				return false
			}
			key := c.b[start+1 : c.i-1] // without quotes: "a" sorts before "a!"
			if !first && bytes.Compare(prev, key) >= 0 {
				return false
			}
			prev = key
			if c.i >= len(c.b) || c.b[c.i] != ':' {
				return false
			}
			c.i++
			if !c.value(depth + 1) {
				return false
			}
			if c.i >= len(c.b) {
				return false
			}
			switch c.b[c.i] {
			case ',':
				c.i++
			case '}':
				c.i++
				return true
			default:
				return false
			}
		}
	case ch == '[':
		c.i++
		if c.i < len(c.b) && c.b[c.i] == ']' {
			c.i++
			return true
		}
		for {
			if !c.value(depth + 1) {
				return false
			}
			if c.i >= len(c.b) {
				return false
			}
			switch c.b[c.i] {
			case ',':
				c.i++
			case ']':
				c.i++
				return true
			default:
				return false
			}
		}
	case ch == '"':
		return c.str()
	case ch == '-' || '0' <= ch && ch <= '9':
		return c.number()
	case ch == 't':
		return c.lit("true")
	case ch == 'f':
		return c.lit("false")
	case ch == 'n':
		return c.lit("null")
	}
	return false
}

// str accepts a string of printable ASCII with no escapes and nothing
// json.Marshal escapes for HTML.
func (c *canonScanner) str() bool {
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return false
	}
	for c.i++; c.i < len(c.b); c.i++ {
		switch ch := c.b[c.i]; {
		case ch == '"':
			c.i++
			return true
		case ch < 0x20 || ch >= 0x7f || ch == '\\' || ch == '<' || ch == '>' || ch == '&':
			return false
		}
	}
	return false
}

// number accepts a JSON number (json.Number keeps its text).
func (c *canonScanner) number() bool {
	b, i := c.b, c.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	c.i = i
	return true
}

func (c *canonScanner) lit(s string) bool {
	if len(c.b)-c.i < len(s) || string(c.b[c.i:c.i+len(s)]) != s {
		return false
	}
	c.i += len(s)
	return true
}
