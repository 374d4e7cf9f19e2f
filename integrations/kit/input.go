package kit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentadapter/agentadapter/adapter"
)

// maxUnwrap bounds nested {"__arg1": "..."} wrappers.
const maxUnwrap = 4

// ParseInput turns the text a text agent passed to a tool into JSON
// arguments for the executor. It accepts, after trimming white space, a
// trailing "Observation:" and code fences:
//
//   - a JSON object: the arguments;
//   - {"__arg1": v} (OpenAIFunctionsAgent's wrapper), unless the schema
//     declares __arg1: v is unwrapped, whether it is an object, a string
//     holding one, or a bare value;
//   - anything else, for a tool with a positional parameter (its only
//     property, or else its only required one): the value of that
//     parameter; a JSON string is unquoted, and for a non-string parameter
//     the text must be JSON ([Description] tells the model so);
//   - nothing at all, or null, for a tool with no required parameters: {}.
//
// Everything else is an args_invalid [*adapter.Error], safe to show the
// model, whose message shows the expected shape; the caller sets its Tool
// and CallID. A nil shape is that of a tool with no parameters.
func ParseInput(input string, shape *Shape) (json.RawMessage, error) {
	if shape == nil {
		shape = NewShape(nil)
	}
	args, err := parseDepth(input, shape, 0)
	if err != nil {
		return nil, err // not a typed nil: err is an *adapter.Error
	}
	return args, nil
}

func parseDepth(input string, a *Shape, depth int) (json.RawMessage, *adapter.Error) {
	s := clean(input)
	if s == "" || s == "null" && a.noRequired {
		// null, as eino and genkit accept it for a tool with nothing
		// required, is no arguments.
		if a.noRequired {
			return json.RawMessage("{}"), nil
		}
		return nil, shapeError(a, "the input is empty")
	}
	if s[0] == '{' {
		b := []byte(s)
		if !json.Valid(b) {
			var v any
			return nil, shapeError(a, "the input is not valid JSON ("+jsonErrText(json.Unmarshal(b, &v))+")")
		}
		if !strings.Contains(s, `"__arg1"`) {
			// The common case: json.Valid does not allocate, and the
			// executor decodes the arguments once.
			return b, nil
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err != nil {
			return nil, shapeError(a, "the input is not valid JSON ("+jsonErrText(err)+")")
		}
		if v, ok := obj["__arg1"]; ok && len(obj) == 1 && !a.hasArg1 {
			if depth >= maxUnwrap {
				return nil, shapeError(a, "the input nests __arg1 too deeply")
			}
			return unwrapArg1(v, a, depth)
		}
		return b, nil
	}
	return positional(s, a, depth)
}

func unwrapArg1(v json.RawMessage, a *Shape, depth int) (json.RawMessage, *adapter.Error) {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) > 0 && v[0] == '{':
		return v, nil
	case len(v) > 0 && v[0] == '"':
		var str string
		if err := json.Unmarshal(v, &str); err != nil {
			return nil, shapeError(a, "the input is not valid JSON ("+jsonErrText(err)+")")
		}
		return parseDepth(str, a, depth+1)
	}
	return parseDepth(string(v), a, depth+1)
}

// positional fills the tool's positional parameter with a bare value.
func positional(s string, a *Shape, depth int) (json.RawMessage, *adapter.Error) {
	if a.positional == "" {
		return nil, shapeError(a, "the input is not a JSON object")
	}
	var value any
	switch {
	case a.positionalString:
		value = s
		// A quoted string is the string: "Paris" means Paris. It may itself
		// hold the JSON object (some agents quote their whole input).
		if s[0] == '"' {
			var str string
			if json.Unmarshal([]byte(s), &str) == nil {
				if t := strings.TrimSpace(str); strings.HasPrefix(t, "{") && depth < maxUnwrap {
					if args, err := parseDepth(t, a, depth+1); err == nil {
						return args, nil
					}
				}
				value = str
			}
		}
	default:
		if !json.Valid([]byte(s)) {
			return nil, shapeError(a, fmt.Sprintf("%q is not a JSON value for %q", truncate(s, 40), a.positional))
		}
		value = json.RawMessage(s)
	}
	b, err := json.Marshal(map[string]any{a.positional: value})
	if err != nil { // unreachable: a string or valid raw JSON
		return nil, shapeError(a, "the input cannot be encoded")
	}
	return b, nil
}

// clean strips white space, a trailing "Observation:" that text agents
// sometimes leave, and Markdown code fences around the input.
func clean(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimSpace(strings.TrimSuffix(s, "Observation:"))
	if strings.HasPrefix(s, "```") {
		body := strings.TrimPrefix(s, "```")
		if i := strings.IndexByte(body, '\n'); i >= 0 && !strings.Contains(body[:i], "{") {
			body = body[i+1:] // the info string: ```json
		}
		body = strings.TrimSpace(body)
		body = strings.TrimSuffix(body, "```")
		s = strings.TrimSpace(body)
	}
	// Some models wrap a one-line input in single backticks.
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// shapeError is the args_invalid error a model reads when its input cannot
// be read: what went wrong, then the shape to send.
func shapeError(a *Shape, what string) *adapter.Error {
	return &adapter.Error{Kind: adapter.KindArgsInvalid, Message: what + "; " + expected(a)}
}

// Explain adds the shape to send to an args_invalid error from the
// executor (a schema violation), so that the model can correct itself;
// it returns other errors, and nil, as they are. The error it returns is
// a copy: err is not modified.
func (a *Shape) Explain(err error) error {
	var e *adapter.Error
	if !errors.As(err, &e) || e.Kind != adapter.KindArgsInvalid {
		return err
	}
	c := *e
	c.Message += "; " + expected(a)
	return &c
}

// expected tells the model what to send.
func expected(a *Shape) string {
	msg := "send a JSON object " + a.shape
	if a.positional != "" && a.positionalString {
		msg += fmt.Sprintf(", or the %s as plain text", a.positional)
	}
	return msg
}

func jsonErrText(err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	}
	return err.Error()
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
