package canonical

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// DuplicateKeyError reports an object key that appears twice: decoders
// disagree on which value wins (encoding/json keeps the last, others the
// first), so a value that validates as one may be read as another.
type DuplicateKeyError struct {
	// Key is the repeated key, decoded (escapes resolved).
	Key string
	// Path is the JSON path of the object holding it, such as $ or $.a[2].
	Path string
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("duplicate key %s in the object at %s", quoteShort(e.Key), e.Path)
}

// quoteShort quotes s, keeping at most 64 bytes of it.
func quoteShort(s string) string {
	if len(s) > 64 {
		i := 64
		for i > 0 && s[i]&0xc0 == 0x80 {
			i--
		}
		return strconv.Quote(s[:i]) + "…"
	}
	return strconv.Quote(s)
}

// Decode decodes one JSON value, as encoding/json would into an any but
// with numbers as json.Number (their text kept), and fails with a
// *DuplicateKeyError if an object repeats a key (after escapes are
// resolved: "a" and "\u0061" are the same key). Trailing data is an error.
func Decode(b []byte) (any, error) {
	if isCanonical(b) {
		// Canonical text has strictly increasing keys: no duplicates.
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		err := d.Decode(&v)
		return v, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := decodeValue(d, "$")
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("trailing data after JSON value")
	}
	return v, nil
}

func decodeValue(d *json.Decoder, path string) (any, error) {
	tok, err := d.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return decodeFrom(d, tok, path)
}

func decodeFrom(d *json.Decoder, tok json.Token, path string) (any, error) {
	switch tok {
	case json.Delim('{'):
		m := map[string]any{}
		for d.More() {
			kt, err := d.Token()
			if err != nil {
				return nil, err
			}
			k, ok := kt.(string)
			if !ok {
				return nil, errors.New("object key is not a string")
			}
			if _, dup := m[k]; dup {
				return nil, &DuplicateKeyError{Key: k, Path: path}
			}
			v, err := decodeValue(d, childPath(path, k))
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		if _, err := d.Token(); err != nil { // '}'
			return nil, err
		}
		return m, nil
	case json.Delim('['):
		a := []any{}
		for i := 0; d.More(); i++ {
			v, err := decodeValue(d, path+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		if _, err := d.Token(); err != nil { // ']'
			return nil, err
		}
		return a, nil
	}
	return tok, nil
}

// childPath is the path of key k under path, kept short: the path only
// ever names where a duplicate was found.
func childPath(path, k string) string {
	if len(path) > 256 {
		return path
	}
	if k != "" && !strings.ContainsFunc(k, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		return path + "." + k
	}
	return path + "[" + quoteShort(k) + "]"
}
