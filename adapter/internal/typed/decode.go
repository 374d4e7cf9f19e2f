package typed

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	sjson "github.com/segmentio/encoding/json"
)

// DecodeArgs decodes validated arguments into a typed handler's input the
// way go-sdk decodes its typed tools' arguments: object keys match struct
// fields case-sensitively. encoding/json would match "Path" to the field
// tagged "path" (the last of the two winning), handing the handler a value
// the schema validator never saw as that property.
func DecodeArgs(args json.RawMessage, v any) error {
	rest, err := sjson.Parse(args, v, sjson.DontMatchCaseInsensitiveStructFields)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		// Validated arguments are one JSON value; keep the check anyway, as
		// Unmarshal would.
		return sjson.Unmarshal(args, v)
	}
	if longDigitRun(args) {
		// segmentio/encoding v0.5.4 misses some overflows of 64-bit
		// integers (21000000000000000000 into a uint64 wraps around);
		// encoding/json does not. Numbers that long are rare: check them
		// with a second decode into a throwaway value.
		if err := json.Unmarshal(args, reflect.New(reflect.TypeOf(v).Elem()).Interface()); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && strings.HasPrefix(te.Value, "number") {
				return err
			}
		}
	}
	return nil
}

// longDigitRun reports a run of 19 or more digits: a number that may not
// fit 64 bits.
func longDigitRun(b []byte) bool {
	n := 0
	for _, c := range b {
		if '0' <= c && c <= '9' {
			if n++; n >= 19 {
				return true
			}
		} else {
			n = 0
		}
	}
	return false
}
