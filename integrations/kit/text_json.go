package kit

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentadapter/agentadapter/adapter"
)

// DataURL returns media as a data URL, for a framework whose media parts
// carry one: data:<mime>;base64,<data>.
func DataURL(mime string, data []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

// OmitNull returns args, or nil when they are empty or JSON null, which
// frameworks send for a call without arguments; the executor reads nil
// as no arguments.
func OmitNull(args json.RawMessage) json.RawMessage {
	if b := bytes.TrimSpace(args); len(b) == 0 || string(b) == "null" {
		return nil
	}
	return args
}

// TextValue returns text as a framework that JSON-encodes a tool's
// output should hold it: text that is a JSON object or list as that JSON
// value (so that the model reads the JSON, not a quoted string of it),
// other text as a string.
func TextValue(text string) any {
	if t := strings.TrimSpace(text); t != "" && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	return text
}

// Marshal encodes v as JSON without HTML escaping or a trailing newline,
// so that the text a framework hands on is the text the renderer wrote.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// FaultPayload answers, in the payload's shape, a call that failed for a
// reason the model cannot fix (connection, internal), for a framework
// that needs an answer for every call even when the run is to end; the
// fault's details stay out of it.
func FaultPayload(err error) string {
	return fmt.Sprintf(`{"error":{"kind":%q,"message":"the tool is unavailable"}}`, adapter.KindOf(err))
}
