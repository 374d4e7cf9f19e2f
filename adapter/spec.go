package adapter

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// A Handler runs a tool on raw JSON arguments. The executor validates the
// arguments against the input schema (with defaults applied) before calling
// it, and validates the result's structured content against the output
// schema after.
//
// A Handler reports a tool failure by returning an error: a plain error
// becomes a [KindToolError] whose message is the error's text; an [*Error]
// keeps its kind.
type Handler func(ctx context.Context, args json.RawMessage) (*Result, error)

// Annotations are hints about a tool's behaviour, as in MCP. As in MCP, an
// unset Destructive or OpenWorld hint means true.
type Annotations struct {
	// ReadOnly: the tool does not modify its environment.
	ReadOnly bool
	// Destructive: the tool may perform destructive updates; nil means true.
	Destructive *bool
	// Idempotent: calling it again with the same arguments has no further
	// effect.
	Idempotent bool
	// OpenWorld: the tool reaches outside entities (the web, other
	// systems); nil means true.
	OpenWorld *bool
}

// IsDestructive reports whether the tool may make destructive changes. A
// read-only tool is never destructive; otherwise an unset hint means true.
func (a Annotations) IsDestructive() bool {
	return !a.ReadOnly && (a.Destructive == nil || *a.Destructive)
}

// IsOpenWorld reports whether the tool may reach an open world of external
// entities (an unset hint means true).
func (a Annotations) IsOpenWorld() bool { return a.OpenWorld == nil || *a.OpenWorld }

// Targets name the integrations a spec is exported to. A spec with no targets
// is exported to all of them.
const (
	TargetMCP         = "mcp"
	TargetEino        = "eino"
	TargetGenkit      = "genkit"
	TargetLangchaingo = "langchaingo"
)

// Source tells where a tool comes from.
type Source struct {
	// Server is the name of the MCP server a tool was imported from; empty
	// for local tools.
	Server string
	// RemoteName is the tool's name on that server, the name sent on the
	// wire; it may differ from Spec.Name when names are prefixed.
	RemoteName string
	// Trusted reports whether the server's annotations are in force. The
	// annotations of an untrusted server are hints: its tools get the most
	// cautious Spec.Annotations (destructive, open-world, neither read-only
	// nor idempotent) whatever they declare, and Hints keeps what they
	// declared, for display.
	Trusted bool
	// Hints are the annotations the server declared for the tool.
	Hints Annotations
}

// IsLocal reports whether the tool is implemented in this process.
func (s Source) IsLocal() bool { return s.Server == "" }

func (s Source) String() string {
	if s.IsLocal() {
		return "local"
	}
	return "mcp:" + s.Server
}

// Spec describes one tool. Build specs with [NewTool] or [NewRawTool]; a
// Spec built as a literal is checked (names, schemas) and compiled when it is
// registered or first called. Once registered, a Spec must not be modified:
// register a new one instead.
type Spec struct {
	// Name identifies the tool: 1–64 characters of [A-Za-z0-9_-].
	Name string
	// Title is a human-readable name; empty means Name.
	Title string
	// Description tells the model what the tool does.
	Description string
	// InputSchema describes the arguments; it always has type "object".
	InputSchema *jsonschema.Schema
	// OutputSchema describes Result.Structured. Nil means the tool has no
	// structured output contract (text only, nothing validated).
	OutputSchema *jsonschema.Schema
	// Annotations are hints about the tool's behaviour (approval policies
	// read them).
	Annotations Annotations
	// Targets lists the integrations that export the tool (see TargetMCP and
	// friends); empty means all.
	Targets []string
	// Tags label the tool, for registry filters.
	Tags []string
	// Timeout bounds each call; zero means the executor's default.
	Timeout time.Duration
	// Source says where the tool runs: here, or on an MCP server.
	Source Source
	// Meta is passed through as MCP's _meta.
	Meta map[string]any
	// Handler runs a call on validated arguments.
	Handler Handler
	// HonorsContext declares that Handler returns promptly once its ctx is
	// done, as the handlers of imported MCP tools do (the go-sdk client
	// stops waiting when its ctx ends). The executor then runs the handler
	// on the caller's goroutine, under the same deadline and panic
	// recovery, saving a goroutine hand-off per call. Leave it false for
	// handlers that may block without watching ctx: the executor then runs
	// them apart, so that their caller never waits past the deadline.
	HonorsContext bool
	// Streaming reports that Handler sends its content in parts as it
	// produces them (see [Emit] and [NewStreamTool]). Integrations that can
	// stream ([Executor.Stream], eino's StreamableTool) pass the parts on as
	// they come; the others get the whole result at the end.
	Streaming bool

	// c caches the *compiled derived from the schemas. An atomic.Value
	// rather than a plain pointer: a literal Spec may be compiled by
	// concurrent first calls. (Not atomic.Pointer: its noCopy would make
	// every copy of a Spec a vet error.)
	c atomic.Value
	// strict decodes the arguments of a typed tool of a plain input type
	// under its inferred schema (see strictDecoder); nil otherwise.
	strict *strictDecoder
}

// compiled holds what is derived from a Spec once: resolved schemas.
type compiled struct {
	inSrc, outSrc *jsonschema.Schema
	in, out       *jsonschema.Resolved
	inDefaults    bool // the input schema declares defaults
	// def is the hex SHA-256 of the definition (name and schemas): cache
	// keys carry it, so a tool redefined under the same name never serves
	// results of the old definition.
	def string
	// strict, if set, validates and decodes arguments in place of the
	// generic decode and jsonschema-go.
	strict *strictDecoder
}

// HasTarget reports whether the spec is exported to the named integration.
func (s *Spec) HasTarget(target string) bool {
	return len(s.Targets) == 0 || slices.Contains(s.Targets, target)
}

// HasTag reports whether the spec carries the tag.
func (s *Spec) HasTag(tag string) bool { return slices.Contains(s.Tags, tag) }

// Check validates the spec (name, schemas, handler) and compiles its schemas.
// It is idempotent; registries call it on registration.
func (s *Spec) Check() error {
	_, err := s.compiled()
	return err
}

func (s *Spec) compiled() (*compiled, error) {
	if c, _ := s.c.Load().(*compiled); c != nil && c.inSrc == s.InputSchema && c.outSrc == s.OutputSchema {
		return c, nil
	}
	if err := ValidateName(s.Name); err != nil {
		return nil, err
	}
	if s.Handler == nil {
		return nil, fmt.Errorf("adapter: tool %q has no handler", s.Name)
	}
	c, err := compile(s.Name, s.InputSchema, s.OutputSchema)
	if err != nil {
		return nil, err
	}
	if s.strict != nil && s.strict.schema == s.InputSchema && !c.inDefaults {
		c.strict = s.strict
	}
	s.c.Store(c)
	return c, nil
}

func compile(name string, in, out *jsonschema.Schema) (*compiled, error) {
	if in == nil {
		return nil, fmt.Errorf("adapter: tool %q has no input schema", name)
	}
	if !isObjectSchema(in) {
		return nil, fmt.Errorf("adapter: tool %q: input schema must have type \"object\", got %s", name, schemaTypeString(in))
	}
	c := &compiled{inSrc: in, outSrc: out, def: definitionHash(name, in, out)}
	// Resolve clones: a Resolved reads its schema at validation time, so an
	// edit to a registered spec's schema would otherwise race with calls.
	// One generic reading of each schema serves the default check and the
	// $ref loop check; jsonschema-go checks defaults only where there are
	// some (its walk is a large part of resolving an imported schema).
	inMap, err := SchemaMap(in)
	if err != nil {
		return nil, fmt.Errorf("adapter: tool %q: input schema: %w", name, err)
	}
	c.inDefaults = walkDefaults(inMap, false)
	if c.in, err = in.CloneSchemas().Resolve(&jsonschema.ResolveOptions{ValidateDefaults: c.inDefaults}); err != nil {
		return nil, fmt.Errorf("adapter: tool %q: input schema: %w", name, err)
	}
	if err := refLoop(inMap); err != nil {
		return nil, fmt.Errorf("adapter: tool %q: input schema: %w", name, err)
	}
	if out != nil {
		if !isObjectSchema(out) {
			return nil, fmt.Errorf("adapter: tool %q: output schema must have type \"object\", got %s", name, schemaTypeString(out))
		}
		outMap, err := SchemaMap(out)
		if err != nil {
			return nil, fmt.Errorf("adapter: tool %q: output schema: %w", name, err)
		}
		if c.out, err = out.CloneSchemas().Resolve(&jsonschema.ResolveOptions{ValidateDefaults: walkDefaults(outMap, false)}); err != nil {
			return nil, fmt.Errorf("adapter: tool %q: output schema: %w", name, err)
		}
		if err := refLoop(outMap); err != nil {
			return nil, fmt.Errorf("adapter: tool %q: output schema: %w", name, err)
		}
	}
	return c, nil
}

func isObjectSchema(s *jsonschema.Schema) bool {
	return s.Type == "object" || (s.Type == "" && len(s.Types) == 1 && s.Types[0] == "object")
}

func schemaTypeString(s *jsonschema.Schema) string {
	switch {
	case s.Type != "":
		return fmt.Sprintf("%q", s.Type)
	case len(s.Types) > 0:
		return fmt.Sprintf("%q", s.Types)
	}
	return "no type"
}

// walkDefaults looks for a "default" keyword; inNames is true inside maps
// keyed by property names, where "default" is a name, not a keyword.
func walkDefaults(v any, inNames bool) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			if k == "default" && !inNames {
				return true
			}
			names := !inNames && (k == "properties" || k == "patternProperties" || k == "$defs" || k == "definitions" || k == "dependentSchemas")
			if walkDefaults(sub, names) {
				return true
			}
		}
	case []any:
		for _, sub := range v {
			if walkDefaults(sub, false) {
				return true
			}
		}
	}
	return false
}

// MaxNameLen is the longest tool name accepted.
const MaxNameLen = 64

// ValidateName reports whether name is a valid tool name: 1 to 64 characters
// from [A-Za-z0-9_-]. That is the strictest rule among the model providers the
// supported frameworks talk to. MCP itself allows 128 characters and '.';
// tools imported from MCP with such names are given a valid local name (see
// the mcpadapter package) while the original is still the one sent on the wire.
func ValidateName(name string) error {
	if name == "" {
		return fmt.Errorf("adapter: empty tool name")
	}
	if n := utf8.RuneCountInString(name); n > MaxNameLen {
		return fmt.Errorf("adapter: tool name %q is %d characters long; the limit is %d", name, n, MaxNameLen)
	}
	for i, r := range name {
		if r >= utf8.RuneSelf || !validNameByte(byte(r)) {
			return fmt.Errorf("adapter: tool name %q has invalid character %q at byte %d; allowed: A-Z a-z 0-9 _ -", name, r, i)
		}
	}
	return nil
}

func validNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// OutputMode chooses how a tool's result is exposed on the structured channel.
type OutputMode int

const (
	// OutputAuto (the default) infers an output schema and returns structured
	// content; an Out type that yields no usable schema is a construction
	// error. For Out = any the result is structured but has no schema.
	OutputAuto OutputMode = iota
	// OutputText turns structured output off: text only, no output schema,
	// nothing validated.
	OutputText
	// OutputRequired makes structured output mandatory: construction fails
	// when no output schema can be produced.
	OutputRequired
)

// ToolOptions configure [NewTool] and [NewRawTool]. The zero value is valid.
type ToolOptions struct {
	// Title, Annotations, Targets, Tags, Timeout, Source and Meta set the
	// spec's fields of the same names (see [Spec]).
	Title       string
	Annotations Annotations
	Targets     []string
	Tags        []string
	Timeout     time.Duration
	Source      Source
	Meta        map[string]any
	// Output chooses structured output; the zero value is OutputAuto.
	Output OutputMode
	// InputSchema, if set, replaces the inferred input schema of a typed tool.
	InputSchema *jsonschema.Schema
	// OutputSchema is the output schema of a raw tool, or replaces the
	// inferred one of a typed tool.
	OutputSchema *jsonschema.Schema
	// Schema options for inference.
	For *jsonschema.ForOptions
}

// NewRawTool returns a spec for a handler over raw JSON. inputSchema must have
// type "object". opts may be nil.
func NewRawTool(name, description string, inputSchema *jsonschema.Schema, h Handler, opts *ToolOptions) (*Spec, error) {
	if opts == nil {
		opts = &ToolOptions{}
	}
	s := newSpec(name, description, opts)
	s.InputSchema = inputSchema
	s.Handler = h
	if opts.Output != OutputText {
		s.OutputSchema = opts.OutputSchema
	}
	if opts.Output == OutputRequired && s.OutputSchema == nil {
		return nil, fmt.Errorf("adapter: tool %q: structured output is required but no output schema was given", name)
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return s, nil
}

// MustRawTool is like [NewRawTool] but panics on error. Use it at
// registration time only.
func MustRawTool(name, description string, inputSchema *jsonschema.Schema, h Handler, opts *ToolOptions) *Spec {
	s, err := NewRawTool(name, description, inputSchema, h, opts)
	if err != nil {
		panic(err)
	}
	return s
}

func newSpec(name, description string, opts *ToolOptions) *Spec {
	return &Spec{
		Name:        name,
		Title:       opts.Title,
		Description: description,
		Annotations: opts.Annotations,
		Targets:     slices.Clone(opts.Targets),
		Tags:        slices.Clone(opts.Tags),
		Timeout:     opts.Timeout,
		Source:      opts.Source,
		Meta:        opts.Meta,
	}
}

// Clone returns a shallow copy of s that can be modified (renamed, given
// other targets) and registered on its own.
func (s *Spec) Clone() *Spec {
	c := *s // shares the compiled cache, which is keyed by schema pointers
	c.Targets = slices.Clone(s.Targets)
	c.Tags = slices.Clone(s.Tags)
	return &c
}

func (s *Spec) String() string {
	var b strings.Builder
	b.WriteString(s.Name)
	if !s.Source.IsLocal() {
		b.WriteString(" (")
		b.WriteString(s.Source.String())
		b.WriteString(")")
	}
	return b.String()
}

func definitionHash(name string, in, out *jsonschema.Schema) string {
	h := sha256.New()
	h.Write([]byte(name))
	for _, s := range []*jsonschema.Schema{in, out} {
		h.Write([]byte{0})
		if s != nil {
			b, _ := json.Marshal(s)
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
