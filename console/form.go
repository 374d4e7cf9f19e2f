package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// A field is one input of the argument editor, generated from one
// top-level property of the tool's input schema.
type field struct {
	Name        string
	ID          string // the input's id; the label's for
	Label       string
	Kind        string // text, number, integer, bool, enum, json, secret
	Value       string
	Options     []string
	Required    bool
	Description string
	Error       string
}

// maxFields bounds the editor: a schema with more properties is edited as
// one JSON document.
const maxFields = 64

// fieldPrefix keeps argument names apart from the form's own fields.
const fieldPrefix = "arg."

// wholeField is the one field of a document edited as JSON.
const wholeField = "args"

func propType(s *jsonschema.Schema) string {
	if s == nil {
		return ""
	}
	if s.Type != "" {
		return s.Type
	}
	for _, t := range s.Types {
		if t != "null" {
			return t
		}
	}
	return ""
}

// propNames lists the schema's properties in its declared order, the rest
// sorted.
func propNames(s *jsonschema.Schema) []string {
	var names []string
	for _, n := range s.PropertyOrder {
		if _, ok := s.Properties[n]; ok && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var rest []string
	for n := range s.Properties {
		if !slices.Contains(names, n) {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

// editable reports whether the form editor can render s field by field.
func editable(s *jsonschema.Schema) bool {
	return s != nil && len(s.Properties) > 0 && len(s.Properties) <= maxFields
}

// buildFields makes the editor's inputs from the schema and the ticket's
// arguments. Values the redaction masks are secrets: their input starts
// empty and, left empty, keeps the original value.
func buildFields(s *jsonschema.Schema, args, shown map[string]any) []field {
	if !editable(s) {
		b, _ := json.MarshalIndent(shown, "", "  ")
		return []field{{Name: wholeField, ID: "f-" + wholeField, Label: "Arguments (JSON)", Kind: "json", Value: string(b), Required: true,
			Description: "The whole argument object; masked secrets keep their value if left as " + strconv.Quote(ledger.Redacted) + "."}}
	}
	var out []field
	for i, name := range propNames(s) {
		p := s.Properties[name]
		f := field{Name: fieldPrefix + name, ID: fmt.Sprintf("f-%d", i), Label: name, Required: slices.Contains(s.Required, name)}
		if p.Title != "" {
			f.Label = p.Title + " (" + name + ")"
		}
		f.Description = p.Description
		v, present := args[name]
		switch t := propType(p); {
		case present && isSecret(v, shown[name]):
			f.Kind = "secret"
		case len(p.Enum) > 0 && allScalars(p.Enum):
			f.Kind = "enum"
			for _, e := range p.Enum {
				f.Options = append(f.Options, jsonText(e))
			}
			if present {
				f.Value = jsonText(v)
			}
		case t == "string":
			f.Kind = "text"
			if s, ok := v.(string); ok {
				f.Value = s
			}
		case t == "integer" || t == "number":
			f.Kind = t
			if present {
				f.Value = jsonText(v)
			}
		case t == "boolean":
			f.Kind = "bool"
			if b, ok := v.(bool); ok {
				f.Value = strconv.FormatBool(b)
			}
		default:
			f.Kind = "json"
			if present {
				b, _ := json.MarshalIndent(shown[name], "", "  ")
				f.Value = string(b)
			}
		}
		out = append(out, f)
	}
	return out
}

func isSecret(orig, shown any) bool {
	s, ok := shown.(string)
	return ok && s == ledger.Redacted && orig != shown
}

func allScalars(vs []any) bool {
	for _, v := range vs {
		switch v.(type) {
		case string, float64, bool, json.Number, int, int64:
		default:
			return false
		}
	}
	return true
}

// jsonText renders a scalar for an input: strings bare, the rest as JSON.
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// parseFields reads the editor back into an argument object and validates
// it against the schema. Errors are set on the fields they belong to;
// problems of the whole object come back as general.
func parseFields(s *jsonschema.Schema, fields []field, form url.Values, args map[string]any) (json.RawMessage, []field, []string) {
	out := map[string]any{}
	bad := false
	if len(fields) == 1 && fields[0].Name == wholeField {
		f := &fields[0]
		f.Value = form.Get(wholeField)
		v, err := decodeJSON(f.Value)
		m, ok := v.(map[string]any)
		switch {
		case err != nil:
			f.Error, bad = "Not valid JSON: "+truncate(err.Error(), 200), true
		case !ok:
			f.Error, bad = "The arguments must be a JSON object.", true
		default:
			restoreSecrets(m, args)
			out = m
		}
	} else {
		// Keys the schema does not list pass through untouched.
		for k, v := range args {
			if _, ok := s.Properties[k]; !ok {
				out[k] = v
			}
		}
		for i := range fields {
			f := &fields[i]
			name := strings.TrimPrefix(f.Name, fieldPrefix)
			val := form.Get(f.Name)
			if f.Kind != "secret" {
				f.Value = val
			}
			if val == "" {
				_, had := args[name]
				switch {
				case f.Kind == "secret":
					if had {
						out[name] = args[name]
					}
					continue
				case f.Kind == "text" && (had || f.Required):
					// An empty string is a value; validation judges it.
				case f.Required:
					f.Error, bad = "Required.", true
					continue
				default:
					continue
				}
			}
			v, err := fieldValue(f, s.Properties[name], val)
			if err != nil {
				f.Error, bad = err.Error(), true
				continue
			}
			if msg := validateProp(s.Properties[name], v); msg != "" {
				f.Error, bad = msg, true
				continue
			}
			out[name] = v
		}
	}
	if bad {
		return nil, fields, nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fields, []string{"The arguments cannot be encoded: " + truncate(err.Error(), 200)}
	}
	if msg := validateAll(s, b); msg != "" {
		return nil, fields, []string{msg}
	}
	return b, fields, nil
}

func restoreSecrets(edited, orig map[string]any) {
	for k, v := range edited {
		if v == ledger.Redacted {
			if o, ok := orig[k]; ok {
				edited[k] = o
			}
		}
	}
}

func fieldValue(f *field, p *jsonschema.Schema, val string) (any, error) {
	switch f.Kind {
	case "text", "secret":
		return val, nil
	case "integer":
		if _, err := strconv.ParseInt(val, 10, 64); err != nil {
			return nil, fmt.Errorf("Enter a whole number.")
		}
		return json.Number(val), nil
	case "number":
		if _, err := strconv.ParseFloat(val, 64); err != nil || !json.Valid([]byte(val)) {
			return nil, fmt.Errorf("Enter a number.")
		}
		return json.Number(val), nil
	case "bool":
		b, err := strconv.ParseBool(val)
		if err != nil {
			return nil, fmt.Errorf("Choose true or false.")
		}
		return b, nil
	case "enum":
		for _, e := range p.Enum {
			if jsonText(e) == val {
				return e, nil
			}
		}
		return nil, fmt.Errorf("Choose one of the listed values.")
	}
	v, err := decodeJSON(val)
	if err != nil {
		return nil, fmt.Errorf("Not valid JSON: %s", truncate(err.Error(), 200))
	}
	return v, nil
}

func decodeJSON(s string) (any, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data after the value")
	}
	return v, nil
}

// generic turns a value into what the validator expects (float64 numbers).
func generic(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var g any
	err = json.Unmarshal(b, &g)
	return g, err
}

// validateProp checks one property alone; a subschema that cannot be
// resolved alone (a $ref to the root) is left to validateAll.
func validateProp(p *jsonschema.Schema, v any) string {
	if p == nil {
		return ""
	}
	if msg := plainCheck(p, v); msg != "" {
		return msg
	}
	rs, err := p.Resolve(nil)
	if err != nil {
		return ""
	}
	g, err := generic(v)
	if err != nil {
		return "Cannot encode the value."
	}
	if err := rs.Validate(g); err != nil {
		return truncate(cleanValidation(err.Error()), 300)
	}
	return ""
}

func validateAll(s *jsonschema.Schema, b []byte) string {
	rs, err := s.Resolve(nil)
	if err != nil {
		return "The tool's input schema cannot be used: " + truncate(err.Error(), 200)
	}
	var g any
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&g); err != nil {
		return "The arguments cannot be decoded."
	}
	if err := rs.Validate(g); err != nil {
		return "The arguments do not match the tool's input schema: " + truncate(cleanValidation(err.Error()), 300)
	}
	return ""
}

func cleanValidation(s string) string {
	return strings.TrimPrefix(s, "validating root: ")
}

// truncate cuts s to at most n bytes (on a rune boundary) and marks the
// cut with "…".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return clip(s, n) + "…"
}

// clip cuts s to at most n bytes, never inside a rune.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// plainCheck words the most common constraint failures for a person; the
// validator's own messages cover the rest.
func plainCheck(p *jsonschema.Schema, v any) string {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return ""
		}
		num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		switch {
		case p.Minimum != nil && f < *p.Minimum:
			return "Must be at least " + num(*p.Minimum) + "."
		case p.Maximum != nil && f > *p.Maximum:
			return "Must be at most " + num(*p.Maximum) + "."
		case p.ExclusiveMinimum != nil && f <= *p.ExclusiveMinimum:
			return "Must be more than " + num(*p.ExclusiveMinimum) + "."
		case p.ExclusiveMaximum != nil && f >= *p.ExclusiveMaximum:
			return "Must be less than " + num(*p.ExclusiveMaximum) + "."
		}
	case string:
		n := utf8.RuneCountInString(v)
		switch {
		case p.MinLength != nil && n < *p.MinLength:
			if *p.MinLength == 1 {
				return "Must not be empty."
			}
			return fmt.Sprintf("Must be at least %d characters.", *p.MinLength)
		case p.MaxLength != nil && n > *p.MaxLength:
			return fmt.Sprintf("Must be at most %d characters.", *p.MaxLength)
		}
	}
	return ""
}
