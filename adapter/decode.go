package adapter

import (
	"encoding/json"

	sjson "github.com/segmentio/encoding/json"
)

// decodeArgs decodes validated arguments into a typed handler's input the
// way go-sdk decodes its typed tools' arguments: object keys match struct
// fields case-sensitively. encoding/json would match "Path" to the field
// tagged "path" (the last of the two winning), handing the handler a value
// the schema validator never saw as that property.
func decodeArgs(args json.RawMessage, v any) error {
	rest, err := sjson.Parse(args, v, sjson.DontMatchCaseInsensitiveStructFields)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		// Validated arguments are one JSON value; keep the check anyway, as
		// Unmarshal would.
		return sjson.Unmarshal(args, v)
	}
	return nil
}
