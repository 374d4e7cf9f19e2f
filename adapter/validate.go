package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentadapter/agentadapter/adapter/canonical"
	"github.com/agentadapter/agentadapter/adapter/internal/argcheck"
)

// DefaultMaxArgBytes is the default limit on the size of a call's arguments.
const DefaultMaxArgBytes = 1 << 20

// prepareArgs checks raw arguments against the input schema and returns the
// one value of the call: the arguments in canonical form (see
// internal/canonical), without the nulls sent for optional properties that
// refuse null (see argcheck.NullDrop), with the schema's defaults applied. Those bytes, and
// only those, are hashed, approved, cached, recorded, handed to the handler
// and forwarded upstream. An object that repeats a key is refused: decoders
// disagree on which value wins, so the validated value could differ from
// the one a handler or an upstream server reads.
func (c *compiled) prepareArgs(args json.RawMessage, maxBytes int) (json.RawMessage, error) {
	args, _, err := c.prepareArgsValue(args, maxBytes)
	return args, err
}

// prepareArgsValue is prepareArgs that also returns the typed value (a
// pointer) when a strict decoder validated the arguments by decoding them.
func (c *compiled) prepareArgsValue(args json.RawMessage, maxBytes int) (json.RawMessage, any, error) {
	if maxBytes > 0 && len(args) > maxBytes {
		return nil, nil, &Error{Kind: KindArgsInvalid, Message: fmt.Sprintf("arguments are %d bytes; the limit is %d", len(args), maxBytes)}
	}
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	trimmed = c.nulls.Drop(trimmed) // a null for an optional property is the property left out
	if c.strict != nil {
		v, err := c.strict.Decode(trimmed)
		if err != nil {
			return nil, nil, &Error{Kind: KindArgsInvalid, Message: err.Error(), Err: err}
		}
		// The one value of the call is the canonical form (free when the
		// arguments are already canonical); the decoder refused duplicates.
		canon, err := canonical.JSON(trimmed)
		if err != nil {
			return nil, nil, &Error{Kind: KindArgsInvalid, Message: "arguments are not valid JSON", Err: err}
		}
		return canon, v, nil
	}
	args, err := c.validateGeneric(trimmed)
	return args, nil, err
}

// validateGeneric decodes the arguments generically, applies the schema's
// defaults and validates them with jsonschema-go.
func (c *compiled) validateGeneric(trimmed json.RawMessage) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(trimmed, &v); err != nil {
		return nil, &Error{Kind: KindArgsInvalid, Message: "arguments are not valid JSON: " + argcheck.JSONErrorText(err), Err: err}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &Error{Kind: KindArgsInvalid, Message: fmt.Sprintf("arguments must be a JSON object, got %s", argcheck.JSONTypeName(v))}
	}
	canon, err := canonical.JSON(trimmed)
	if err != nil {
		var dup *canonical.DuplicateKeyError
		if errors.As(err, &dup) {
			return nil, &Error{Kind: KindArgsInvalid, Message: "arguments are ambiguous: " + dup.Error(), Err: err}
		}
		return nil, &Error{Kind: KindArgsInvalid, Message: "arguments are not valid JSON", Err: err}
	}
	if c.inDefaults {
		if err := c.in.ApplyDefaults(&m); err != nil {
			return nil, &Error{Kind: KindArgsInvalid, Message: "applying defaults: " + err.Error(), Err: err}
		}
	}
	if err := c.inFlat.Validate(c.in, m); err != nil {
		return nil, &Error{Kind: KindArgsInvalid, Message: "arguments do not match the input schema: " + argcheck.Violation(err, c.in, m), Err: err}
	}
	if c.inDefaults {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, &Error{Kind: KindInternal, Message: "re-encoding arguments", Err: err}
		}
		return b, nil
	}
	return canon, nil
}

// checkResult validates a result's structured content against the output
// schema. A mismatch is a tool error naming the offending field.
func (c *compiled) checkResult(r *Result) error {
	if r == nil {
		return &Error{Kind: KindToolError, Message: "the tool returned no result"}
	}
	if c.out == nil {
		return nil
	}
	if r.Structured == nil {
		return &Error{Kind: KindToolError, Message: "the tool declares an output schema but returned no structured content"}
	}
	if r.validFor == c.outSrc && r.cachedJSON() != nil {
		return nil // a typed tool's plain output, unchanged since it was encoded
	}
	inst, err := genericJSON(r)
	if err != nil {
		return &Error{Kind: KindToolError, Message: "structured content does not encode as JSON: " + err.Error(), Err: err}
	}
	if err := c.outFlat.Validate(c.out, inst); err != nil {
		return &Error{Kind: KindToolError, Message: "the result does not match the output schema: " + argcheck.Violation(err, c.out, inst), Err: err}
	}
	return nil
}

// genericJSON returns the structured content as the generic JSON value the
// validator needs (map[string]any and friends).
func genericJSON(r *Result) (any, error) {
	if s, ok := r.Structured.(map[string]any); ok && r.cachedJSON() == nil {
		return s, nil // already generic (raw or imported tools)
	}
	b, err := r.StructuredJSON()
	if err != nil {
		return nil, err
	}
	var v any
	err = json.Unmarshal(b, &v) // v stays nil on an error
	return v, err
}
