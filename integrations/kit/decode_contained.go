package kit

import (
	"encoding/json"
	"fmt"
)

// UnmarshalContained returns json.Unmarshal for a framework's type whose
// decoder may panic on odd input (eino's schema type on a null "type"):
// the panic is an error, "<what> failed: <panic>". Pass it as
// [SchemaStruct]'s decode.
func UnmarshalContained[T any](what string) func([]byte, *T) error {
	return func(data []byte, v *T) (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("%s failed: %v", what, p)
			}
		}()
		return json.Unmarshal(data, v)
	}
}
