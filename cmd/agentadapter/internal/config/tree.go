package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tailscale/hujson"
)

// node is one JSON value with where it was found, so that every complaint
// about the configuration can name the file, the JSON path and the line.
type node struct {
	kind  byte // '{', '[', 's' string, 'n' number, 'b' bool, '0' null
	line  int
	path  string
	keys  []string         // object keys in file order
	obj   map[string]*node // object members
	arr   []*node
	str   string
	num   json.Number
	boolv bool
}

// parse reads JSON with comments and trailing commas (JSONC, as VS Code and
// several desktop clients accept) into a tree of nodes. Duplicate keys are
// an error: encoding/json would silently keep the last one, and a server
// listed twice is almost always a mistake.
func parse(file string, data []byte) (*node, error) {
	std, err := hujson.Standardize(data)
	if err != nil {
		line, msg := 0, strings.TrimPrefix(err.Error(), "hujson: ")
		var col int
		if _, e := fmt.Sscanf(msg, "line %d, column %d: ", &line, &col); e == nil {
			if i := strings.Index(msg, ": "); i >= 0 {
				msg = msg[i+2:]
			}
		}
		// hujson quotes the word it could not read: an include of a
		// secrets file would print its first secret.
		if strings.HasPrefix(msg, "invalid literal") {
			msg = "a bare word (strings need double quotes)"
			if col > 0 {
				msg = fmt.Sprintf("a bare word at column %d (strings need double quotes)", col)
			}
		}
		return nil, &Error{File: file, Line: line, Msg: "not valid JSON: " + msg}
	}
	p := &parser{file: file, data: std, dec: json.NewDecoder(bytes.NewReader(std))}
	p.dec.UseNumber()
	n, err := p.value("")
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, &Error{File: file, Line: lineAt(std, int(p.dec.InputOffset())), Msg: "not valid JSON: data after the top-level value"}
	}
	if n.kind != '{' {
		return nil, &Error{File: file, Line: n.line, Msg: "the configuration must be a JSON object"}
	}
	return n, nil
}

type parser struct {
	file string
	data []byte
	dec  *json.Decoder
}

func (p *parser) syntax(err error) error {
	var se *json.SyntaxError
	line := lineAt(p.data, int(p.dec.InputOffset()))
	if errors.As(err, &se) {
		line = lineAt(p.data, int(se.Offset))
	}
	if err == io.EOF {
		err = errors.New("unexpected end of file")
	}
	return &Error{File: p.file, Line: line, Msg: "not valid JSON: " + err.Error()}
}

func (p *parser) value(path string) (*node, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.syntax(err)
	}
	n := &node{line: lineAt(p.data, int(p.dec.InputOffset())), path: path}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.kind, n.obj = '{', map[string]*node{}
			for p.dec.More() {
				kt, err := p.dec.Token()
				if err != nil {
					return nil, p.syntax(err)
				}
				k, _ := kt.(string)
				kpath := joinPath(path, k)
				kline := lineAt(p.data, int(p.dec.InputOffset()))
				if prev, dup := n.obj[k]; dup {
					return nil, &Error{File: p.file, Line: kline, Path: kpath, Msg: fmt.Sprintf("duplicate key %q (first at line %d)", k, prev.line)}
				}
				v, err := p.value(kpath)
				if err != nil {
					return nil, err
				}
				v.line = kline
				n.keys = append(n.keys, k)
				n.obj[k] = v
			}
		case '[':
			n.kind = '['
			for i := 0; p.dec.More(); i++ {
				v, err := p.value(fmt.Sprintf("%s[%d]", path, i))
				if err != nil {
					return nil, err
				}
				n.arr = append(n.arr, v)
			}
		}
		if _, err := p.dec.Token(); err != nil {
			return nil, p.syntax(err)
		}
	case string:
		n.kind, n.str = 's', t
	case json.Number:
		n.kind, n.num = 'n', t
	case bool:
		n.kind, n.boolv = 'b', t
	case nil:
		n.kind = '0'
	}
	return n, nil
}

// joinPath appends a key to a JSON path, quoting keys that are not plain
// identifiers: mcpServers["my.server"].command.
func joinPath(path, key string) string {
	plain := key != ""
	for _, r := range key {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			plain = false
		}
	}
	switch {
	case !plain:
		return fmt.Sprintf("%s[%q]", path, key)
	case path == "":
		return key
	default:
		return path + "." + key
	}
}

func lineAt(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

// plain converts a tree to the generic JSON values encoding/json reads.
func (n *node) plain() any {
	switch n.kind {
	case '{':
		m := make(map[string]any, len(n.obj))
		for k, v := range n.obj {
			m[k] = v.plain()
		}
		return m
	case '[':
		a := make([]any, len(n.arr))
		for i, v := range n.arr {
			a[i] = v.plain()
		}
		return a
	case 's':
		return n.str
	case 'n':
		return n.num
	case 'b':
		return n.boolv
	}
	return nil
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
