package langchaingoadapter

import (
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Severity is the old name of [kit.Severity].
//
// Deprecated: use [kit.Severity]; go fix -inline rewrites it.
//
//go:fix inline
type Severity = kit.Severity

// SeverityWarning is the old name of [kit.SeverityWarning].
//
// Deprecated: use [kit.SeverityWarning]; go fix -inline rewrites it.
//
//go:fix inline
const SeverityWarning = kit.SeverityWarning

// SeverityError is the old name of [kit.SeverityError].
//
// Deprecated: use [kit.SeverityError]; go fix -inline rewrites it.
//
//go:fix inline
const SeverityError = kit.SeverityError

// Issue is the old name of [kit.Issue].
//
// Deprecated: use [kit.Issue]; go fix -inline rewrites it.
//
//go:fix inline
type Issue = kit.Issue

// StrictSchema is the old name of [kit.Strict].
//
// Deprecated: use [kit.Strict]; go fix -inline rewrites it.
//
//go:fix inline
func StrictSchema(s *jsonschema.Schema) (map[string]any, []kit.Issue) { return kit.Strict(s) }

// Describe is the old name of [kit.Description].
//
// Deprecated: use [kit.Description]; go fix -inline rewrites it.
//
//go:fix inline
func Describe(spec *adapter.Spec) string { return kit.Description(spec) }
