package schema

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"

	canon "github.com/agentadapter/agentadapter/adapter/canonical"
)

// AppendJSON appends the encoding of a decoded JSON value (map[string]any,
// []any, string, float64, bool, nil) exactly as json.Marshal writes it:
// keys sorted, <, > and & escaped, numbers as encoding/json formats them.
// It reports false for anything else, which the caller leaves to
// json.Marshal. Pins hash these bytes, so they must never differ from
// json.Marshal's (TestAppendJSONMatchesMarshal, FuzzAppendJSON); writing
// them directly avoids encoding/json's reflection, which was the largest
// part of an import's own CPU once schemas compiled lazily.
func AppendJSON(dst []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case bool:
		return strconv.AppendBool(dst, v), true
	case string:
		return canon.AppendString(dst, v), true
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return dst, false
		}
		format := byte('f')
		if abs := math.Abs(v); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
			format = 'e'
		}
		dst = strconv.AppendFloat(dst, v, format, -1, 64)
		if format == 'e' { // e-09 → e-9, as encoding/json writes it
			if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
				dst[n-2] = dst[n-1]
				dst = dst[:n-1]
			}
		}
		return dst, true
	case []any:
		if v == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, x := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = AppendJSON(dst, x); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case map[string]any:
		if v == nil {
			return append(dst, "null"...), true
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = canon.AppendString(dst, k)
			dst = append(dst, ':')
			var ok bool
			if dst, ok = AppendJSON(dst, v[k]); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	}
	return dst, false
}

// Marshal is json.Marshal for decoded JSON values, without reflection
// for the usual ones.
func Marshal(v any) ([]byte, error) {
	if b, ok := AppendJSON(nil, v); ok {
		return b, nil
	}
	return json.Marshal(v)
}

// CanonicalJSON encodes a schema of any Go type with sorted object keys;
// nil (and JSON null) give nil.
func CanonicalJSON(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	if m, ok := v.(map[string]any); ok && m == nil {
		return nil, nil
	}
	b, err := Marshal(Canonical(v))
	if err != nil || string(b) == "null" {
		return nil, err
	}
	return b, nil
}

// Canonical turns a schema of any Go type into generic JSON, whose maps
// encoding/json writes with sorted keys.
func Canonical(v any) any {
	if v == nil {
		return nil
	}
	if m, ok := v.(map[string]any); ok {
		if m == nil {
			return nil
		}
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var g any
	if json.Unmarshal(b, &g) != nil {
		return v
	}
	return g
}
