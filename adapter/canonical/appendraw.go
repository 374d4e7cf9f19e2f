package canonical

import "encoding/json"

// AppendRaw appends valid JSON as encoding/json writes a json.RawMessage
// field: compacted, with <, >, &, U+2028 and U+2029 escaped. Canonical
// JSON and the executor's encodings have none of those bytes to change,
// so they are copied as they are. Ledger chain hashes and result hashes
// hash bytes written with it.
func AppendRaw(b, raw []byte) []byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r', '<', '>', '&', 0xE2: // 0xE2 starts U+2028 and U+2029
			enc, err := json.Marshal(json.RawMessage(raw))
			if err != nil { // unreachable for valid JSON: keep the bytes rather than lose them
				return append(b, raw...)
			}
			return append(b, enc...)
		}
	}
	return append(b, raw...)
}
