package adapter

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter/internal/argcheck"
	"github.com/agentadapter/agentadapter/adapter/internal/typed"
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
	// Credential is what calls reach Server with: "", "shared", "caller"
	// or "exchanged" (see approval.Request.Credential).
	Credential string
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
// Spec built as a literal is checked (name, handler, schema types) when it
// is registered and its schemas are compiled on its first call (see
// [Spec.Compile]). Once registered, a Spec must not be modified: register a
// new one instead.
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
	// stops waiting when its ctx ends), and as a handler that always
	// returns quickly (a small computation that never blocks) does. The
	// executor then runs the handler on the caller's goroutine, under the
	// same deadline and panic recovery, saving a goroutine hand-off per
	// call (the largest cost of a cheap call). Leave it false for handlers
	// that may block without watching ctx: the executor then runs them
	// apart, so that their caller never waits past the deadline.
	HonorsContext bool
	// Forward, if set, makes the spec a meta-tool naming another call (a
	// search index's call_tool): the executor runs the Request it returns
	// (its Tool, Spec and Args; the rest is this call's) in place of this
	// call, through the whole pipeline, recorded under the named tool as a
	// direct call of it. No Spec (or one that forwards) is an unknown tool
	// named Tool; an error fails the call. Handler never runs.
	Forward func(ctx context.Context, args json.RawMessage) (*Request, error)
	// Streaming reports that Handler sends its content in parts as it
	// produces them (see [Emit] and [NewStreamTool]). Integrations that can
	// stream ([Executor.Stream], eino's StreamableTool) pass the parts on as
	// they come; the others get the whole result at the end.
	Streaming bool

	// c caches the *compiled derived from the schemas. An atomic.Value
	// rather than a plain pointer: a literal Spec may be checked by
	// concurrent first calls. (Not atomic.Pointer: its noCopy would make
	// every copy of a Spec a vet error.)
	c atomic.Value
	// strict decodes the arguments of a typed tool of a plain input type
	// under its inferred schema (see typed.Strict); nil otherwise.
	strict *typed.Strict
}

// compiled holds what is derived from a Spec once. The part that Check
// needs (the schemas' top-level types) is set when it is made; the rest
// (resolved schemas, $ref loop check, definition hash) by resolve, once,
// on first use: compiling is most of the cost of importing a tool, and
// most imported tools are never called.
type compiled struct {
	name          string
	inSrc, outSrc *jsonschema.Schema
	// strictCand is the spec's strict decoder, used unless the input
	// schema declares defaults.
	strictCand *typed.Strict

	once sync.Once
	err  error // why the schemas do not compile; every call gets it

	in, out         *jsonschema.Resolved
	inDefaults      bool           // the input schema declares defaults
	inFlat, outFlat *argcheck.Flat // in and out's fast check of a flat object schema, or nil
	// def is the hex SHA-256 of the definition (name and schemas): cache
	// keys carry it, so a tool redefined under the same name never serves
	// results of the old definition.
	def string
	// strict, if set, validates and decodes arguments in place of the
	// generic decode and jsonschema-go.
	strict *typed.Strict
	// nulls removes the nulls sent for optional properties (see argcheck.NullDrop).
	nulls argcheck.NullDrop
}

// HasTarget reports whether the spec is exported to the named integration.
func (s *Spec) HasTarget(target string) bool {
	return len(s.Targets) == 0 || slices.Contains(s.Targets, target)
}

// HasTag reports whether the spec carries the tag.
func (s *Spec) HasTag(tag string) bool { return slices.Contains(s.Tags, tag) }

// Check validates the spec's name, handler and the top-level type of its
// schemas. It is cheap and idempotent; registries call it on registration.
// The schemas themselves are compiled (resolved, checked for $ref loops) by
// [Spec.Compile] or on the first call.
func (s *Spec) Check() error {
	_, err := s.checked()
	return err
}

// Compile checks the spec and compiles its schemas now rather than on the
// first call. [NewTool] and [NewRawTool] compile; a Spec built as a literal
// or imported from an MCP server is compiled on its first call. A schema
// that does not compile (a dangling or looping $ref, an invalid keyword)
// fails Compile and every call of the tool with the same error; calls get a
// [KindToolError].
func (s *Spec) Compile() error {
	_, err := s.compiled()
	return err
}

// checked returns the spec's compiled state, checking the spec if it is
// new or its schemas were replaced; the schemas may not be resolved yet.
func (s *Spec) checked() (*compiled, error) {
	if c, _ := s.c.Load().(*compiled); c != nil && c.inSrc == s.InputSchema && c.outSrc == s.OutputSchema {
		return c, nil
	}
	if err := ValidateName(s.Name); err != nil {
		return nil, err
	}
	if s.Handler == nil {
		return nil, fmt.Errorf("adapter: tool %q has no handler", s.Name)
	}
	in, out := s.InputSchema, s.OutputSchema
	if in == nil {
		return nil, fmt.Errorf("adapter: tool %q has no input schema", s.Name)
	}
	if !argcheck.IsObjectSchema(in) {
		return nil, fmt.Errorf("adapter: tool %q: input schema must have type \"object\", got %s", s.Name, argcheck.SchemaTypeString(in))
	}
	if out != nil && !argcheck.IsObjectSchema(out) {
		return nil, fmt.Errorf("adapter: tool %q: output schema must have type \"object\", got %s", s.Name, argcheck.SchemaTypeString(out))
	}
	c := &compiled{name: s.Name, inSrc: in, outSrc: out}
	if s.strict != nil && s.strict.Schema() == in {
		c.strictCand = s.strict
	}
	// Concurrent first calls may each store one; any of them is right.
	s.c.Store(c)
	return c, nil
}

// compiled returns the spec's compiled state with its schemas resolved.
func (s *Spec) compiled() (*compiled, error) {
	c, err := s.checked()
	if err != nil {
		return nil, err
	}
	c.once.Do(func() { c.err = c.resolve() })
	if c.err != nil {
		return nil, c.err
	}
	return c, nil
}

// A schemaError is a schema that does not compile. Its text is bounded: a
// hostile server chooses the schema, and with it the error's text.
type schemaError struct{ msg string }

func (e *schemaError) Error() string { return e.msg }

// maxSchemaErrorBytes bounds the text of a schemaError.
const maxSchemaErrorBytes = 1024

func newSchemaError(name, which string, err error) *schemaError {
	msg := fmt.Sprintf("adapter: tool %q: %s schema: %v", name, which, err)
	if len(msg) > maxSchemaErrorBytes {
		cut := maxSchemaErrorBytes
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return &schemaError{msg: msg}
}

// specError turns the error of Spec.compiled into the error of a call: a
// schema that does not compile is the tool's failure (the model can use
// another tool); anything else is a programming error.
func specError(err error, tool, callID string) *Error {
	var se *schemaError
	if errors.As(err, &se) {
		return &Error{Kind: KindToolError, Tool: tool, CallID: callID, Message: "the tool cannot be called: its schema is invalid", Err: err}
	}
	return &Error{Kind: KindInternal, Tool: tool, CallID: callID, Message: "invalid tool spec", Err: err}
}

// resolve compiles the schemas. Each is encoded once; those bytes are
// hashed for the definition and read back generically for the default and
// $ref loop checks. Resolve works on clones: a Resolved reads its schema at
// validation time, so an edit to a registered spec's schema would
// otherwise race with calls.
func (c *compiled) resolve() error {
	inJSON, err := json.Marshal(c.inSrc)
	if err != nil {
		return newSchemaError(c.name, "input", err)
	}
	var outJSON []byte
	if c.outSrc != nil {
		if outJSON, err = json.Marshal(c.outSrc); err != nil {
			return newSchemaError(c.name, "output", err)
		}
	}
	c.def = definitionHash(c.name, inJSON, outJSON)
	in, err := argcheck.ResolveSchema(c.inSrc, inJSON)
	if err != nil {
		return newSchemaError(c.name, "input", err)
	}
	c.in, c.inDefaults, c.inFlat = in.RS, in.Defaults, argcheck.NewFlat(in.RS.Schema())
	c.nulls.Init(in.RS.Schema())
	if c.strictCand != nil && !c.inDefaults {
		c.strict = c.strictCand
	}
	if c.outSrc != nil {
		out, err := argcheck.ResolveSchema(c.outSrc, outJSON)
		if err != nil {
			return newSchemaError(c.name, "output", err)
		}
		c.out, c.outFlat = out.RS, argcheck.NewFlat(out.RS.Schema())
	}
	return nil
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
	// Title, Annotations, Targets, Tags, Timeout, Source, Meta and
	// HonorsContext set the spec's fields of the same names (see [Spec]).
	Title         string
	Annotations   Annotations
	Targets       []string
	Tags          []string
	Timeout       time.Duration
	Source        Source
	Meta          map[string]any
	HonorsContext bool
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
	if err := s.Compile(); err != nil {
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

		HonorsContext: opts.HonorsContext,
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

// definitionHash hashes a tool's name and its schemas as encoded (a nil
// output schema encodes as nothing).
func definitionHash(name string, in, out []byte) string {
	h := sha256.New()
	h.Write([]byte(name))
	for _, b := range [][]byte{in, out} {
		h.Write([]byte{0})
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
