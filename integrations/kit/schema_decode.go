package kit

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
)

// DecodeKeywords decodes keywords (keyword → JSON value, none of them a
// subschema) into dst, a framework's schema type with a field per keyword,
// through decode (nil: json.Unmarshal), and returns those dst cannot carry,
// for the caller to keep beside it (in the type's extras, say): keywords
// whose value their field cannot hold, and keywords the type would drop
// on output (an omitempty field drops a null or an empty value), unless
// [Vacuous]. dst must hold nothing else yet: what its JSON keeps is what
// it carries. keywords is not modified.
func DecodeKeywords[T any](dst *T, keywords map[string]json.RawMessage, decode func([]byte, *T) error) (rest map[string]json.RawMessage, err error) {
	if decode == nil {
		decode = func(b []byte, v *T) error { return json.Unmarshal(b, v) }
	}
	rest = map[string]json.RawMessage{}
	if len(keywords) == 0 {
		return rest, nil
	}
	fit := keywords
	if b, err := json.Marshal(fit); err != nil || decode(b, dst) != nil {
		// Some value does not fit its field: decode one keyword at a time.
		fit = maps.Clone(keywords)
		for _, k := range slices.Sorted(maps.Keys(fit)) {
			one, _ := json.Marshal(map[string]json.RawMessage{k: fit[k]})
			var probe T
			if decode(one, &probe) != nil {
				rest[k] = fit[k]
				delete(fit, k)
			}
		}
		// One decode for all that fit: a decoder may reset fields that
		// are absent from its input.
		b, err := json.Marshal(fit)
		if err != nil {
			return nil, err
		}
		if err := decode(b, dst); err != nil {
			return nil, err
		}
	}
	b, err := json.Marshal(dst)
	if err != nil {
		return nil, err
	}
	kept := map[string]json.RawMessage{}
	if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '{' { // an empty schema may marshal as true
		if err := json.Unmarshal(b, &kept); err != nil {
			return nil, err
		}
	}
	for k, v := range fit {
		if _, ok := kept[k]; ok || Vacuous(k, v) {
			continue
		}
		rest[k] = v
	}
	return rest, nil
}
