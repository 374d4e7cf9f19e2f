package wire

import "github.com/modelcontextprotocol/go-sdk/mcp"

// ClientCaps returns what req.ClientCapabilities returns, without its
// cost on the hot path: a 2026-07-28 request carries its capabilities in
// _meta, as the generic map its JSON decoded to, and go-sdk encodes that
// map and decodes it again into the typed value on every call (4 % of the
// gateway's CPU per imported call). ClientCaps reads the map directly
// when every field go-sdk would decode has the shape its decoder accepts;
// anything else (a typed value set in process, a field of another type,
// no capabilities at all) goes to go-sdk, so the answer is the same
// either way, as TestClientCapsAgrees checks on random inputs.
func ClientCaps(req *mcp.CallToolRequest) *mcp.ClientCapabilities {
	if req == nil {
		return nil
	}
	if req.Params == nil {
		return req.ClientCapabilities()
	}
	if raw, ok := req.Params.Meta[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
		if caps, ok := readCaps(raw); ok {
			return caps
		}
	}
	return req.ClientCapabilities()
}

// readCaps decodes raw as go-sdk decodes the capabilities of a request's
// _meta (clientCapabilitiesV2, then toV1): keys matched case-sensitively,
// others ignored, null as absent. It reports false for any value go-sdk's
// decoder would refuse, which makes go-sdk's whole decode fail.
func readCaps(raw map[string]any) (*mcp.ClientCapabilities, bool) {
	caps := &mcp.ClientCapabilities{}
	var ok bool
	if caps.Experimental, ok = object(raw["experimental"]); !ok {
		return nil, false
	}
	if caps.Extensions, ok = object(raw["extensions"]); !ok {
		return nil, false
	}
	if v, present := raw["roots"]; present && v != nil {
		m, isMap := v.(map[string]any)
		if !isMap {
			return nil, false
		}
		r := &mcp.RootCapabilities{}
		switch lc := m["listChanged"].(type) {
		case nil:
		case bool:
			r.ListChanged = lc
		default:
			return nil, false
		}
		caps.RootsV2 = r
		caps.Roots.ListChanged = r.ListChanged
	}
	if v, present := raw["sampling"]; present && v != nil {
		m, isMap := v.(map[string]any)
		if !isMap {
			return nil, false
		}
		s := &mcp.SamplingCapabilities{}
		ctx, ok1 := present2(m, "context")
		tools, ok2 := present2(m, "tools")
		if !ok1 || !ok2 {
			return nil, false
		}
		if ctx {
			s.Context = &mcp.SamplingContextCapabilities{}
		}
		if tools {
			s.Tools = &mcp.SamplingToolsCapabilities{}
		}
		caps.Sampling = s
	}
	if v, present := raw["elicitation"]; present && v != nil {
		m, isMap := v.(map[string]any)
		if !isMap {
			return nil, false
		}
		e := &mcp.ElicitationCapabilities{}
		form, ok1 := present2(m, "form")
		url, ok2 := present2(m, "url")
		if !ok1 || !ok2 {
			return nil, false
		}
		if form {
			e.Form = &mcp.FormElicitationCapabilities{}
		}
		if url {
			e.URL = &mcp.URLElicitationCapabilities{}
		}
		caps.Elicitation = e
	}
	return caps, true
}

// object returns v as the map[string]any field it decodes to: nil for
// absent or null, false for anything but an object.
func object(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case nil:
		return nil, true
	case map[string]any:
		return m, true
	}
	return nil, false
}

// present2 reports whether m's key holds an object (a field of an empty
// struct type, present), and false as its second result for a value that
// is neither an object nor null.
func present2(m map[string]any, key string) (bool, bool) {
	switch m[key].(type) {
	case nil:
		return false, true
	case map[string]any:
		return true, true
	}
	return false, false
}
