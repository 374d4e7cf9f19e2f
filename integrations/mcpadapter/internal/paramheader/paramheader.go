// Package paramheader mirrors a tool's arguments into the Mcp-Param-<name>
// request headers of SEP-2243 (2026-07-28): a tool's input properties
// annotated with x-mcp-header are carried in headers, which the server
// checks against the body.
//
//	bindings := paramheader.Bindings(inputSchema) // nil: invalid annotations
//	hc.Transport = &paramheader.Transport{Base: base, Bindings: lookup}
//
// It is internal to the module.
package paramheader

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// SEP-2243 (2026-07-28): a tool's input properties annotated with
// x-mcp-header are mirrored into Mcp-Param-<name> request headers, which
// the server checks against the body. go-sdk sets them from its cache of
// the session's last tools/list, which a refresh empties before it lists
// again (and which is gone after a failed refresh or on a new session);
// Transport sets them from the imported, pinned, definition
// instead, on every call.

// Binding maps an input property (a path of property names) to the
// header that carries it.
type Binding struct {
	path   []string
	header string // "Mcp-Param-" + the annotation
}

// Bindings returns the bindings of an input schema, or nil when its
// annotations are invalid (go-sdk leaves such a tool out of the listing,
// so it is never imported).
func Bindings(s *jsonschema.Schema) []Binding {
	var out []Binding
	seen := map[string]bool{}
	var walk func(s *jsonschema.Schema, prefix []string, depth int) bool
	walk = func(s *jsonschema.Schema, prefix []string, depth int) bool {
		if s == nil || depth > 32 {
			return true
		}
		for name, p := range s.Properties {
			if p == nil {
				continue
			}
			path := append(prefix[:len(prefix):len(prefix)], name)
			if v, ok := p.Extra["x-mcp-header"]; ok {
				h, ok := v.(string)
				if !ok || !validHeaderName(h) || seen[strings.ToLower(h)] || (p.Type != "string" && p.Type != "integer" && p.Type != "boolean") {
					return false
				}
				seen[strings.ToLower(h)] = true
				out = append(out, Binding{path: path, header: "Mcp-Param-" + h})
			}
			if !walk(p, path, depth+1) {
				return false
			}
		}
		return true
	}
	if !walk(s, nil, 0) {
		return nil
	}
	return out
}

// validHeaderName reports whether h is an HTTP token (RFC 9110 tchar).
func validHeaderName(h string) bool {
	if h == "" {
		return false
	}
	for _, c := range h {
		switch {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", c):
		default:
			return false
		}
	}
	return true
}

// value encodes an argument as SEP-2243 says: a string as is,
// or Base64 in =?base64?…?= when it is not plain printable ASCII without
// surrounding blanks (or looks encoded already); a boolean as true/false;
// an integer within ±(2^53-1) in decimal. Anything else (null, a
// fraction, an object) has no header.
func value(raw json.RawMessage) (string, bool) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		if needsBase64(v) {
			return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?=", true
		}
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case float64:
		if v != math.Trunc(v) || math.Abs(v) > 1<<53-1 {
			return "", false
		}
		return strconv.FormatInt(int64(v), 10), true
	}
	return "", false
}

func needsBase64(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return true
		}
	}
	return strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?=")
}

// maxParamBody bounds the request body read for its arguments.
const maxParamBody = 8 << 20

// Transport sets the Mcp-Param headers of a 2026-07-28 tools/call (go-sdk
// has set Mcp-Method and Mcp-Name) from the bindings of the tool it names.
type Transport struct {
	Base http.RoundTripper
	// Bindings returns the bindings of the tool imported under a remote
	// name (nil for none, or no such tool).
	Bindings func(name string) []Binding
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Method") != "tools/call" || r.GetBody == nil {
		return t.Base.RoundTrip(r)
	}
	name := r.Header.Get("Mcp-Name")
	bs := t.Bindings(name)
	if len(bs) == 0 {
		return t.Base.RoundTrip(r)
	}
	body, err := r.GetBody()
	if err != nil {
		return t.Base.RoundTrip(r)
	}
	b, err := io.ReadAll(io.LimitReader(body, maxParamBody))
	body.Close()
	var msg struct {
		Params struct {
			Name      string                     `json:"name"`
			Arguments map[string]json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if err != nil || json.Unmarshal(b, &msg) != nil || msg.Params.Name != name {
		return t.Base.RoundTrip(r)
	}
	r2 := r.Clone(r.Context())
	for _, pb := range bs {
		raw, ok := lookupArg(msg.Params.Arguments, pb.path)
		v := ""
		if ok {
			v, ok = value(raw)
		}
		if ok {
			r2.Header.Set(pb.header, v)
		} else {
			r2.Header.Del(pb.header)
		}
	}
	return t.Base.RoundTrip(r2)
}

func lookupArg(args map[string]json.RawMessage, path []string) (json.RawMessage, bool) {
	cur, ok := args[path[0]]
	for _, p := range path[1:] {
		if !ok {
			return nil, false
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(cur, &m) != nil {
			return nil, false
		}
		cur, ok = m[p]
	}
	return cur, ok
}
