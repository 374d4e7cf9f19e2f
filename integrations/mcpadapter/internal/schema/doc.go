// Package schema holds the JSON Schema code both halves of mcpadapter
// share: converting an upstream's wire schema into a *jsonschema.Schema,
// bounding it before anything reads it, writing the schema an export lists,
// and the canonical JSON that definition pins hash.
//
//	if err := schema.Check(v); err != nil { // errors.Is(err, schema.ErrLimit)
//		return err
//	}
//	wire, _ := schema.CanonicalJSON(v)
//	s, err := schema.From(v, wire)
//
// It is internal to the module: mcpadapter re-exports [ErrLimit] as
// mcpadapter.ErrSchemaLimit.
package schema
