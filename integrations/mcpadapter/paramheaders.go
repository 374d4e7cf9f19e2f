package mcpadapter

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
// paramHeaderTransport sets them from the imported, pinned, definition
// instead, on every call.

// paramBinding maps an input property (a path of property names) to the
// header that carries it.
type paramBinding struct {
	path   []string
	header string // "Mcp-Param-" + the annotation
}

// paramBindings returns the bindings of an input schema, or nil when its
// annotations are invalid (go-sdk leaves such a tool out of the listing,
// so it is never imported).
func paramBindings(s *jsonschema.Schema) []paramBinding {
	var out []paramBinding
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
				out = append(out, paramBinding{path: path, header: "Mcp-Param-" + h})
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

// paramHeaderValue encodes an argument as SEP-2243 says: a string as is,
// or Base64 in =?base64?…?= when it is not plain printable ASCII without
// surrounding blanks (or looks encoded already); a boolean as true/false;
// an integer within ±(2^53-1) in decimal. Anything else (null, a
// fraction, an object) has no header.
func paramHeaderValue(raw json.RawMessage) (string, bool) {
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

// bindingsOf returns the bindings of an imported tool, computed once.
func (c *conn) bindingsOf(imp *imported) []paramBinding {
	if v, ok := c.paramHeaders.Load(imp); ok {
		return v.([]paramBinding)
	}
	var bs []paramBinding
	if s, ok := imp.tool.InputSchema.(*jsonschema.Schema); ok {
		bs = paramBindings(s)
	}
	v, _ := c.paramHeaders.LoadOrStore(imp, bs)
	return v.([]paramBinding)
}

// importedByRemote returns the tool in force imported under a remote name.
func (c *conn) importedByRemote(name string) *imported {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools[name]
}

// maxParamBody bounds the request body read for its arguments.
const maxParamBody = 8 << 20

// paramHeaderTransport sets the Mcp-Param headers of a 2026-07-28
// tools/call (go-sdk has set Mcp-Method and Mcp-Name) from the imported
// definition of the tool it names.
type paramHeaderTransport struct {
	base http.RoundTripper
	c    *conn
}

func (t *paramHeaderTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Method") != "tools/call" || r.GetBody == nil {
		return t.base.RoundTrip(r)
	}
	name := r.Header.Get("Mcp-Name")
	imp := t.c.importedByRemote(name)
	if imp == nil {
		return t.base.RoundTrip(r)
	}
	bs := t.c.bindingsOf(imp)
	if len(bs) == 0 {
		return t.base.RoundTrip(r)
	}
	body, err := r.GetBody()
	if err != nil {
		return t.base.RoundTrip(r)
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
		return t.base.RoundTrip(r)
	}
	r2 := r.Clone(r.Context())
	for _, pb := range bs {
		raw, ok := lookupArg(msg.Params.Arguments, pb.path)
		v := ""
		if ok {
			v, ok = paramHeaderValue(raw)
		}
		if ok {
			r2.Header.Set(pb.header, v)
		} else {
			r2.Header.Del(pb.header)
		}
	}
	return t.base.RoundTrip(r2)
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
