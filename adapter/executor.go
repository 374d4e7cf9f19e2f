package adapter

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"reflect"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"golang.org/x/sync/singleflight"

	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/adapter/canonical"
	"github.com/agentadapter/agentadapter/adapter/internal/redact"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/runsync"
)

// A Catalog finds specs by name. *registry.Registry is one.
type Catalog interface {
	Lookup(name string) (*Spec, bool)
}

// DefaultTimeout bounds a call when neither the request, the spec nor the
// executor sets a timeout.
const DefaultTimeout = 60 * time.Second

// An Invoker runs a call: the rest of the pipeline, as seen by a [Hook].
type Invoker func(ctx context.Context, c *ToolCall) (*Result, error)

// A Hook is middleware around a call. It runs after the arguments are
// validated and wraps everything after: guards, approval, limits, cache,
// the handler. It may observe the call, rewrite c.Args (they are validated
// again), short-circuit by returning without calling next, or observe and
// replace the result or error. Hooks run in order: the first is outermost.
// A panicking hook fails the call with [KindInternal].
type Hook func(next Invoker) Invoker

// A Guard checks calls against a rule. Input runs before approval, Output
// on every result (cached ones too). A non-nil error blocks the call with
// [KindGuardrailBlocked]; its text is the reason shown to the model.
type Guard struct {
	// Name names the guard in the model's message and the ledger.
	Name string
	// Input, if set, checks a call before approval.
	Input func(ctx context.Context, c *ToolCall) error
	// Output, if set, checks a result before it leaves.
	Output func(ctx context.Context, c *ToolCall, r *Result) error
}

// ExecutorOptions configure an [Executor]. The zero value is a valid
// configuration: 1 MiB argument limit, 60 s timeout, no hooks, guards,
// approval, cache, limits or ledger, the global OpenTelemetry tracer
// provider and slog's default logger.
type ExecutorOptions struct {
	// MaxArgBytes bounds the size of a call's arguments; zero means
	// DefaultMaxArgBytes, negative means no limit.
	MaxArgBytes int
	// Timeout bounds calls of tools that set none; zero means DefaultTimeout.
	Timeout time.Duration
	// Hooks wrap every call, the first outermost (see [Hook]).
	Hooks []Hook
	// Guards check every call and result (see [Guard]).
	Guards []Guard
	// Approval configures approval; with no Port, no call is held.
	Approval ApprovalOptions
	// Cache, if set, caches results of the tools it lists.
	Cache *CacheOptions
	// Limits are the run limits for runs that set none of their own. Calls
	// made outside any run (no [WithRun]) are counted in an implicit run
	// per caller ([caller.Identity.Subject]) that lasts as long as the executor,
	// so a limit always holds; MaxCallsPerWindow is the natural limit for
	// them. Limits that cannot apply make NewExecutor panic (see
	// [Limits.Validate]).
	Limits Limits
	// Ledger, if set, records every call: from a goroutine of the
	// executor's own, which takes records in batches (a record reaches
	// the ledger within about half a millisecond; Flush and Shutdown do
	// not wait for that), or, for a [ledger.Durable] that asks for it, on
	// the call's path before the call returns.
	Ledger ledger.Ledger
	// LedgerBuffer is how many records may wait for the ledger; zero means 4096.
	LedgerBuffer int
	// LedgerWait is how long a call may wait for room in a full ledger
	// buffer before its record is dropped (and counted); zero means 50 ms.
	LedgerWait time.Duration
	// Redact masks secrets in the arguments the ledger records; nil means
	// the masking of ledger.RedactKeys(SecretKeys...), which also masks a masked
	// value wherever the record's message quotes it. It runs on the
	// ledger's goroutine. Arguments that are not JSON never reach it: the
	// ledger records their size and SHA-256 instead.
	Redact func(tool string, args json.RawMessage) json.RawMessage
	// SecretKeys are the key names masked when Redact is nil; nil means
	// ledger.DefaultSecretKeys().
	SecretKeys []string
	// TracerProvider makes the span of each call; nil means the global one.
	TracerProvider trace.TracerProvider
	// Logger receives operational logs; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Executor runs tool calls through one governed pipeline, in this order:
//
//  1. lookup: an unknown tool is [KindNotFound];
//  2. arguments: size limit, JSON syntax (with the byte offset), input
//     schema with defaults applied (naming the JSON path): [KindArgsInvalid];
//  3. hooks, outermost first, around all that follows;
//  4. input guards: [KindGuardrailBlocked];
//  5. approval: [KindApprovalDenied], [KindApprovalPending];
//  6. run limits: [KindRunLimitExceeded] (cache hits count too, so a
//     looping agent is stopped even when its calls are cached);
//  7. cache: a hit skips the handler; concurrent identical misses run it once;
//  8. timeout and panic recovery around the handler: [KindTimeout],
//     [KindToolError] (a panic, with its stack kept in the error's cause);
//  9. output schema validation: [KindToolError] naming the field;
//  10. output guards, on fresh and cached results alike;
//  11. the ledger records the call, whatever happened; its span ends.
//
// A cached result is only served to a call that passed the input guards,
// approval and the run limits, and the output guards see it: policy holds
// for every call, cached or not. A hook that panics fails the call with
// [KindInternal]; a caller's context cancelled mid-call is [KindInternal]
// too (nobody is left to read a payload).
//
// The handler runs in a goroutine of its own (a reused worker), so that
// the caller never waits past the deadline: a handler that ignores ctx is
// abandoned there (and counted by runsync.Abandoned until it returns). A
// spec that declares HonorsContext runs on the caller's goroutine instead.
//
// For cached tools the outcome of validating an argument text is
// remembered, so a repeated call skips the schema check. Handlers must
// treat their arguments as read-only, and callers the results they get:
// both may be shared between calls.
//
// Spans are started only when there is somewhere to send them: with no
// ExecutorOptions.TracerProvider and no global provider installed, a
// call starts none (a no-op span still costs allocations); installing a
// global provider later turns them on.
//
// An Executor is safe for concurrent use. Close it to stop its ledger
// writer; Close waits for the ledger to take the records still buffered.
type Executor struct {
	tools   Catalog
	opts    ExecutorOptions
	maxArgs int
	timeout time.Duration
	tracer  trace.Tracer
	// globalNoop is the global tracer provider as it was when the executor
	// was made, if that was the no-op delegate (see tracingOff).
	globalNoop trace.TracerProvider
	logger     *slog.Logger
	now        func() time.Time
	policy     ApprovalPolicy
	cache      Cache
	cacheTTL   time.Duration
	sf         singleflight.Group
	memo       argMemo
	ledger     *ledgerWriter
	warned     sync.Map // tool name → warned about cache misconfiguration
	implicit   implicitRuns
	calls      counter
}

// NewExecutor returns an executor over a catalog (which may be nil when
// every call names its spec, see [Request.Spec]). opts may be nil.
func NewExecutor(tools Catalog, opts *ExecutorOptions) *Executor {
	if opts == nil {
		opts = &ExecutorOptions{}
	}
	e := &Executor{tools: tools, opts: *opts, maxArgs: opts.MaxArgBytes, timeout: opts.Timeout, now: opts.Now}
	if e.maxArgs == 0 {
		e.maxArgs = DefaultMaxArgBytes
	}
	if e.timeout <= 0 {
		e.timeout = DefaultTimeout
	}
	if e.now == nil {
		e.now = time.Now
	}
	tp := opts.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	e.tracer = tp.Tracer("github.com/agentadapter/agentadapter/adapter")
	if opts.TracerProvider == nil && isGlobalDelegate(tp) {
		e.globalNoop = tp
	}
	e.logger = opts.Logger
	if e.logger == nil {
		e.logger = slog.Default()
	}
	if err := opts.Limits.Validate(); err != nil {
		panic(err.Error())
	}
	if !opts.Approval.Scope.Valid() {
		panic(fmt.Sprintf("adapter: unknown approval scope %q", opts.Approval.Scope))
	}
	e.policy = opts.Approval.Policy
	if e.policy == nil {
		e.policy = ApproveByAnnotations
	}
	if c := opts.Cache; c != nil {
		e.cacheTTL = c.TTL
		if e.cacheTTL <= 0 {
			e.cacheTTL = DefaultCacheTTL
		}
		e.cache = c.Store
		if e.cache == nil {
			e.cache = NewMemoryCache(DefaultCacheSize, maxTTL(e.cacheTTL, c.Tools))
		}
	}
	if opts.Ledger != nil {
		var red *redact.Redactor
		if opts.Redact == nil {
			keys := opts.SecretKeys
			if keys == nil {
				keys = redact.Defaults()
			}
			red = redact.New(keys)
		}
		e.ledger = newLedgerWriter(opts.Ledger, opts.LedgerBuffer, opts.LedgerWait, opts.Redact, red, e.logger)
	}
	return e
}

func maxTTL(def time.Duration, tools map[string]time.Duration) time.Duration {
	m := def
	for _, t := range tools {
		m = max(m, t)
	}
	return m
}

var defaultExecutor atomic.Pointer[Executor]

// fallbackExecutor is the default executor until one is set. Nobody can
// approve for it, so it holds every call that needs approval (by default:
// destructive and open-world tools) instead of running it unapproved.
var fallbackExecutor = sync.OnceValue(func() *Executor {
	return NewExecutor(nil, &ExecutorOptions{Approval: ApprovalOptions{Port: approval.Func(holdUnapproved)}})
})

func holdUnapproved(context.Context, *approval.Request) (approval.Decision, error) {
	return approval.Decision{Verdict: approval.VerdictDenied, Reason: "this tool needs approval and no approver is configured (the default executor holds destructive and open-world tools)"}, nil
}

// SetDefault makes e the executor [Default] returns. SetDefault(nil)
// restores the built-in default.
//
// Deprecated: nothing in agentadapter falls back to a default executor
// (a nil executor is an error everywhere); pass your *Executor to each
// integration. The process-wide default goes in v0.3.
func SetDefault(e *Executor) { defaultExecutor.Store(e) }

// Default returns the default executor: the one set with [SetDefault], or
// else an executor with default options and no catalog (it can only run
// calls that carry their spec, see [Request.Spec]) whose approval port
// denies every call that needs approval: under the default policy,
// destructive and open-world tools do not run through it until an executor
// with an approval port is set.
//
// Deprecated: nothing in agentadapter falls back to it; build an
// executor with [NewExecutor] and pass it explicitly.
func Default() *Executor {
	if e := defaultExecutor.Load(); e != nil {
		return e
	}
	return fallbackExecutor()
}

// Request is one call to [Executor.Do], as the caller passes it. The
// executor resolves it into a [ToolCall]: ToolCall is the Request after
// lookup, validation and scope.
type Request struct {
	// Tool is the name to look up in the catalog.
	Tool string
	// Spec, if set, is called instead of looking Tool up.
	Spec *Spec
	// Args are the call's arguments, a JSON object as the model sent it.
	Args json.RawMessage
	// CallID identifies the call; empty means a random id.
	CallID string
	// Integration names the caller ("eino", "genkit", "langchaingo", "mcp").
	Integration string
	// Native is the framework's own object for the call.
	Native any
	// Ticket presents an approval ticket to resume a pending call.
	Ticket string
	// Timeout overrides the tool's timeout for this call.
	Timeout time.Duration
	// Approval overrides the executor's approval port for this call.
	Approval approval.Port
}

// Call runs the named tool with raw JSON arguments.
func (e *Executor) Call(ctx context.Context, name string, args json.RawMessage) (*Result, error) {
	return e.Do(ctx, &Request{Tool: name, Args: args})
}

// callState is everything the pipeline keeps about one call, in one
// allocation: the Call that hooks, guards and the handler see, what the
// ledger needs, and the ledger record itself.
type callState struct {
	call     ToolCall
	e        *Executor
	reqArgs  json.RawMessage // the arguments as given
	timeout  time.Duration   // Request.Timeout
	port     approval.Port   // Request.Approval
	compiled *compiled
	valid    json.RawMessage // the arguments as validated
	start    time.Time
	approver string
	// requester is who asked for the ticket the approval came from.
	requester string
	ticket    string
	cacheKey  string // set when known before the cache stage
	hctx      callCtx
	approval  approval.Verdict
	hctxUsed  atomic.Bool
	cacheHit  bool
	// argsChanged is set when a hook or an approver replaced the arguments
	// after the cache key was computed.
	argsChanged bool
	// argsHash is CanonicalHash of the validated arguments, when the
	// argument memo knew it.
	argsHash string
	// argsPrivate is set when the validated arguments are bytes the
	// executor made and never changes (not the caller's buffer), so the
	// ledger may keep them without a copy.
	argsPrivate bool
}

// Do runs one call through the pipeline. Every error it returns is an [*Error].
func (e *Executor) Do(ctx context.Context, req *Request) (*Result, error) {
	return e.do(ctx, req, false)
}

// Unknown records a call to a tool its caller cannot reach (a name a model
// made up, or one the integration does not offer) and returns the
// [KindNotFound] error every integration answers with ([UnknownTool]; its
// [ModelPayload] is what the model reads). It never looks the name up, so
// a tool the integration filters out stays unknown even when the catalog
// holds it; req.Spec is ignored. The call has one record, like any other,
// bounded for a flood of made-up names: the name is truncated as the
// error's is, the arguments are kept or hashed as any call's.
func (e *Executor) Unknown(ctx context.Context, req *Request) *Error {
	_, err := e.do(ctx, req, true)
	var nf *Error
	if !errors.As(err, &nf) { // unreachable: do returns an *Error
		nf = UnknownTool(req.Tool)
	}
	return nf
}

// do is Do; unknown skips the lookup (Unknown).
func (e *Executor) do(ctx context.Context, req *Request, unknown bool) (res *Result, err error) {
	st := &callState{e: e, reqArgs: req.Args, timeout: req.Timeout, port: req.Approval}
	if e.ledger != nil { // only the ledger reads the clock of the call's start
		st.start = e.now()
	}
	call := &st.call
	call.CallID, call.Tool, call.Integration, call.Native, call.Ticket = req.CallID, req.Tool, req.Integration, req.Native, req.Ticket
	if call.Tool == "" && req.Spec != nil && !unknown {
		call.Tool = req.Spec.Name
	}
	if call.CallID == "" {
		call.CallID = newCallID()
	}
	call.ID = call.CallID
	call.Identity = caller.IdentityFrom(ctx)
	call.Session = caller.SessionFrom(ctx)
	if r := RunFromContext(ctx); r != nil {
		call.RunID = r.id
	}
	span := noopSpan
	if !e.tracingOff() {
		ctx, span = e.tracer.Start(ctx, "execute_tool", spanStartOptions...)
	}
	defer func() {
		if p := recover(); p != nil { // a bug in the pipeline itself: contain it
			res, err = nil, &Error{Kind: KindInternal, Tool: call.Tool, CallID: call.CallID, Message: "internal error", Err: &runsync.PanicError{Value: p, Stack: debug.Stack()}}
		}
		e.finish(ctx, span, st, res, err)
	}()
	e.calls.add()
	spec := req.Spec
	if unknown {
		spec = nil
	} else if spec == nil && e.tools != nil {
		spec, _ = e.tools.Lookup(call.Tool)
	}
	raw := req.Args
	if spec != nil && spec.Forward != nil {
		var ferr *Error
		if spec, raw, ferr = e.forward(ctx, st, spec, raw); ferr != nil {
			return nil, ferr
		}
	}
	if spec == nil {
		nf := UnknownTool(call.Tool)
		nf.CallID = call.CallID
		// The record names the tool as the error does: a flood of long
		// made-up names keeps the ledger small.
		call.Tool = nf.Tool
		return nil, nf
	}
	call.Spec = spec
	c, cerr := spec.compiled()
	if cerr != nil {
		return nil, specError(cerr, call.Tool, call.CallID)
	}
	args, aerr := e.prepareArgs(st, spec, c, raw)
	if aerr != nil {
		return nil, withTool(aerr, call.Tool, call.CallID)
	}
	call.Args, st.valid, st.compiled = args, args, c
	if len(e.opts.Hooks) == 0 {
		res, err = st.core(ctx, call)
	} else {
		inv := Invoker(st.core)
		for i := len(e.opts.Hooks) - 1; i >= 0; i-- {
			inv = containHook(e.opts.Hooks[i](inv))
		}
		res, err = inv(ctx, call)
	}
	if err != nil {
		return nil, toolError(err, call.Tool, call.CallID)
	}
	if res == nil {
		return nil, &Error{Kind: KindToolError, Tool: call.Tool, CallID: call.CallID, Message: "the tool returned no result"}
	}
	return res, nil
}

// forward resolves the call of a meta-tool (Spec.Forward) into the call it
// names; a nil spec back is an unknown tool named call.Tool.
func (e *Executor) forward(ctx context.Context, st *callState, meta *Spec, raw json.RawMessage) (*Spec, json.RawMessage, *Error) {
	call := &st.call
	if e.maxArgs > 0 && len(raw) > e.maxArgs { // bounded before Forward reads them
		return nil, nil, &Error{Kind: KindArgsInvalid, Tool: call.Tool, CallID: call.CallID, Message: fmt.Sprintf("arguments are %d bytes; the limit is %d", len(raw), e.maxArgs)}
	}
	fwd, err := meta.Forward(ctx, raw)
	if err == nil && fwd == nil {
		err = &Error{Kind: KindInternal, Message: "internal error", Err: fmt.Errorf("adapter: %s forwarded no call", meta.Name)}
	}
	if err != nil {
		return nil, nil, toolError(err, call.Tool, call.CallID)
	}
	call.Tool, st.reqArgs = fwd.Tool, fwd.Args
	if call.Tool == "" && fwd.Spec != nil {
		call.Tool = fwd.Spec.Name
	}
	if fwd.Spec != nil && fwd.Spec.Forward != nil { // one hop: a meta-tool never names another
		fwd.Spec = nil
	}
	return fwd.Spec, fwd.Args, nil
}

// tracingOff reports whether spans would go nowhere: the executor uses the
// global tracer provider and none has been installed. Starting a no-op
// span still costs three allocations per call.
func (e *Executor) tracingOff() bool {
	return e.globalNoop != nil && otel.GetTracerProvider() == e.globalNoop
}

// noopSpan stands in for the span of an untraced call.
var noopSpan trace.Span = noop.Span{}

// isGlobalDelegate reports whether tp is OpenTelemetry's global provider
// before any provider is installed: it delegates to the one installed
// later and, until then, makes no-op spans. SetTracerProvider replaces it,
// so comparing the current global provider with it tells whether one was
// installed since.
func isGlobalDelegate(tp trace.TracerProvider) bool {
	return reflect.TypeOf(tp).String() == "*global.tracerProvider"
}

// prepareArgs validates the arguments; for cached tools it remembers the
// outcome by argument text (see argMemo), with the cache key.
func (e *Executor) prepareArgs(st *callState, spec *Spec, c *compiled, raw json.RawMessage) (json.RawMessage, error) {
	if _, cacheable := e.cacheable(spec); !cacheable || len(raw) > memoMaxArgs {
		args, v, err := c.prepareArgsValue(raw, e.maxArgs)
		if v != nil {
			st.call.decoded, st.call.decodedFrom = v, args
		}
		// Arguments already canonical come back as the caller's bytes.
		st.argsPrivate = err == nil && !sameBytes(args, bytes.TrimSpace(raw))
		return args, err
	}
	st.argsPrivate = true // the memo's copies are never changed
	if me, ok := e.memo.get(c, raw); ok {
		st.cacheKey, st.argsHash = me.key, me.hash
		return me.args, nil
	}
	args, err := c.prepareArgs(raw, e.maxArgs)
	if err != nil {
		return nil, err
	}
	args = bytes.Clone(args) // it may be the caller's buffer
	key, err := cacheKey(spec.Name, c.def, args)
	if err != nil {
		return args, nil
	}
	me := memoEntry{args: args, key: key}
	if e.ledger != nil {
		// Every hit's record carries it: hash once, not per record.
		me.hash, _ = canonical.Hash(args)
	}
	e.memo.put(c, raw, me)
	st.cacheKey, st.argsHash = key, me.hash
	return args, nil
}

// cacheKey is the part of a cache key that does not depend on the caller:
// the tool, its definition hash and the canonical arguments.
func cacheKey(tool, def string, args json.RawMessage) (string, error) {
	canon, err := canonical.JSON(args)
	if err != nil {
		return "", err
	}
	return tool + "\x00" + def + "\x00" + string(canon), nil
}

// callerKey completes a cache key with the caller's subject, unless results
// are shared.
func (e *Executor) callerKey(key string, call *ToolCall) string {
	if e.opts.Cache.Shared {
		return key + "\x00*"
	}
	subject := ""
	if call.Identity != nil {
		subject = call.Identity.Subject
	}
	return key + "\x00@" + subject
}

// spanStartOptions are built once: building them per call allocates.
var spanStartOptions = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}

// newCallID makes a call id from 96 random bits of the runtime's per-thread
// generator: unique without a trip to crypto/rand or a counter shared by
// every CPU.
func newCallID() string {
	var buf [5 + 24]byte
	copy(buf[:], "call_")
	const digits = "0123456789abcdef"
	hi, lo := mrand.Uint64(), mrand.Uint32()
	for i := 0; i < 16; i++ {
		buf[5+i] = digits[hi>>(60-4*i)&15]
	}
	for i := 0; i < 8; i++ {
		buf[21+i] = digits[lo>>(28-4*i)&15]
	}
	return string(buf[:])
}

// counter is a sharded counter: calls on different CPUs mostly touch
// different cache lines.
type counter struct {
	shards [8]struct {
		n atomic.Int64
		_ [56]byte
	}
}

func (c *counter) add() { c.shards[mrand.Uint32()&7].n.Add(1) }

func (c *counter) load() int64 {
	var n int64
	for i := range c.shards {
		n += c.shards[i].n.Load()
	}
	return n
}

func containHook(inv Invoker) Invoker {
	return func(ctx context.Context, c *ToolCall) (res *Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				res, err = nil, &Error{Kind: KindInternal, Message: "a hook panicked", Err: &runsync.PanicError{Value: p, Stack: debug.Stack()}}
			}
		}()
		return inv(ctx, c)
	}
}

// core is the innermost invoker: everything after the hooks.
func (st *callState) core(ctx context.Context, call *ToolCall) (*Result, error) {
	e := st.e
	if call != &st.call { // a hook passed another Call on: follow it
		st.call.Args = call.Args
		call = &st.call
	}
	if !sameBytes(call.Args, st.valid) { // a hook rewrote the arguments
		args, err := st.compiled.prepareArgs(call.Args, e.maxArgs)
		if err != nil {
			return nil, err
		}
		call.Args, st.valid, st.argsChanged = args, args, true
	}
	for i := range e.opts.Guards {
		g := &e.opts.Guards[i]
		if g.Input == nil {
			continue
		}
		if err := g.Input(ctx, call); err != nil {
			return nil, &Error{Kind: KindGuardrailBlocked, Guard: g.Name, Message: fmt.Sprintf("blocked by guard %s: %s", g.Name, err.Error()), Err: err}
		}
	}
	if err := e.approve(ctx, st, call); err != nil {
		return nil, err
	}
	if r := RunFromContext(ctx); r != nil {
		if err := r.admit(call.Spec.Name, e.opts.Limits, e.now()); err != nil {
			return nil, err
		}
	} else if !e.opts.Limits.isZero() {
		if err := e.implicit.run(call).admit(call.Spec.Name, e.opts.Limits, e.now()); err != nil {
			return nil, err
		}
	}
	res, err := e.cached(ctx, st, call)
	if err != nil {
		return nil, err
	}
	for i := range e.opts.Guards {
		g := &e.opts.Guards[i]
		if g.Output == nil {
			continue
		}
		if err := g.Output(ctx, call, res); err != nil {
			return nil, &Error{Kind: KindGuardrailBlocked, Guard: g.Name, Message: fmt.Sprintf("result blocked by guard %s: %s", g.Name, err.Error()), Err: err}
		}
	}
	return res, nil
}

func sameBytes(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	return len(a) == 0 || &a[0] == &b[0]
}

func (e *Executor) approve(ctx context.Context, st *callState, call *ToolCall) error {
	port := st.port
	if port == nil {
		port = e.opts.Approval.Port
	}
	if port == nil {
		return nil
	}
	policy := e.policy
	if p, ok := e.opts.Approval.Tools[call.Spec.Name]; ok && p != nil {
		policy = p
	}
	if !policy(ctx, call) {
		return nil
	}
	hash, err := canonical.Hash(call.Args)
	if err != nil {
		return &Error{Kind: KindInternal, Message: "hashing arguments", Err: err}
	}
	scope := cmp.Or(e.opts.Approval.Scope, approval.ScopeSubject)
	d, err := port.Decide(ctx, approvalRequest(call, hash, scope))
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			return &Error{Kind: KindCancelled, Message: "the caller cancelled the call while it awaited approval", Err: err}
		}
		if ctx.Err() != nil {
			return &Error{Kind: KindTimeout, Message: "the caller's deadline passed before approval arrived", Err: err}
		}
		return &Error{Kind: KindInternal, Message: "the approval port failed", Err: err}
	}
	st.approval, st.approver, st.ticket, st.requester = d.Verdict, d.Approver, d.Ticket, d.Requester
	switch d.Verdict {
	case approval.VerdictApproved:
		if len(d.Args) > 0 {
			args, err := st.compiled.prepareArgs(d.Args, e.maxArgs)
			if err != nil {
				return err
			}
			call.Args, st.valid, st.argsChanged = args, args, true
		}
		return nil
	case approval.VerdictDenied:
		msg := "the call was denied"
		if d.Reason != "" {
			msg += ": " + d.Reason
		}
		return &Error{Kind: KindApprovalDenied, Message: msg, Ticket: d.Ticket}
	case approval.VerdictPending:
		return &Error{Kind: KindApprovalPending, Ticket: d.Ticket,
			Message: fmt.Sprintf("the call is waiting for approval (ticket %s); retry the same call once it is approved", d.Ticket)}
	}
	return &Error{Kind: KindInternal, Message: fmt.Sprintf("the approval port returned verdict %v", d.Verdict)}
}

// cached serves the call from the cache when the tool is cached, running
// the handler once for concurrent identical misses.
func (e *Executor) cached(ctx context.Context, st *callState, call *ToolCall) (*Result, error) {
	ttl, ok := e.cacheable(call.Spec)
	if !ok {
		return e.invoke(ctx, st, call)
	}
	key := st.cacheKey
	if key == "" || !sameBytes(call.Args, st.valid) || st.argsChanged {
		k, err := cacheKey(call.Spec.Name, st.compiled.def, call.Args)
		if err != nil {
			return e.invoke(ctx, st, call)
		}
		key = k
	}
	key = e.callerKey(key, call)
	if r, ok := e.cache.Get(ctx, key); ok {
		st.cacheHit = true
		return r, nil
	}
	led := false // set by the closure, which only the flight's leader runs
	ch := e.sf.DoChan(key, func() (any, error) {
		led = true
		// The run serves every caller that joins it: the leader going away
		// must not cancel it. The tool's own timeout still bounds it, and
		// each caller stops waiting at its own deadline.
		r, err := e.invoke(context.WithoutCancel(ctx), st, call)
		if err == nil {
			e.cache.Add(ctx, key, r, ttl)
		}
		return r, err
	})
	// A call that joins another's run of the handler still waits no longer
	// than its own deadline.
	timeout := e.timeoutOf(st.timeout, call.Spec)
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case v := <-ch:
		if v.Err != nil {
			return nil, v.Err
		}
		if !led {
			st.cacheHit = true // served by another call's run of the handler
		}
		return v.Val.(*Result), nil
	case <-t.C:
		return nil, &Error{Kind: KindTimeout, Message: fmt.Sprintf("the tool did not finish within %s (%s)", timeout, e.timeoutSource(st.timeout, call.Spec)), Err: context.DeadlineExceeded}
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, &Error{Kind: KindCancelled, Message: "the caller cancelled the call", Err: ctx.Err()}
		}
		return nil, &Error{Kind: KindTimeout, Message: "the caller's deadline passed before the tool finished", Err: ctx.Err()}
	}
}

func (e *Executor) cacheable(s *Spec) (time.Duration, bool) {
	if e.cache == nil {
		return 0, false
	}
	ttl, ok := e.opts.Cache.Tools[s.Name]
	if !ok {
		return 0, false
	}
	if !s.Annotations.ReadOnly && !s.Annotations.Idempotent {
		if _, warned := e.warned.LoadOrStore(s.Name, true); !warned {
			e.logger.Warn("adapter: not caching a tool that is neither read-only nor idempotent", "tool", s.Name)
		}
		return 0, false
	}
	if ttl <= 0 {
		ttl = e.cacheTTL
	}
	return ttl, true
}

// timeoutMessage says which deadline fired: the caller's, the executor's
// own timeout for the call (naming where it was set), or one the tool met
// on its own (its own context, or an upstream server's).
func (e *Executor) timeoutMessage(ctx context.Context, st *callState, call *ToolCall, ran time.Duration) string {
	timeout := e.timeoutOf(st.timeout, call.Spec)
	switch {
	case ctx.Err() != nil:
		return "the caller's deadline passed before the tool finished"
	case ran >= timeout:
		return fmt.Sprintf("the tool did not finish within %s (%s)", timeout, e.timeoutSource(st.timeout, call.Spec))
	}
	return fmt.Sprintf("the tool reported a deadline of its own (or of the server it calls) exceeded after %s, before the %s timeout", ran.Round(time.Millisecond), timeout)
}

// timeoutSource names where the call's timeout was set.
func (e *Executor) timeoutSource(req time.Duration, s *Spec) string {
	switch {
	case req > 0:
		return "the request's timeout"
	case s.Timeout > 0:
		return "the tool's timeout"
	case e.opts.Timeout > 0:
		return "the executor's timeout"
	}
	return "the default timeout"
}

// timeoutOf is the call's timeout: the request's, else the tool's, else
// the executor's.
func (e *Executor) timeoutOf(req time.Duration, s *Spec) time.Duration {
	if req > 0 {
		return req
	}
	if s.Timeout > 0 {
		return s.Timeout
	}
	return e.timeout
}

// recoverWithin runs the handler of a spec that honours its context on this
// goroutine, under timeout (none if zero), with panic recovery.
func recoverWithin(ctx context.Context, timeout time.Duration) (*Result, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	res, err := runsync.Recover(ctx, runHandler)
	if err == nil && ctx.Err() != nil {
		// The handler finished, but after the deadline: report it as the
		// timeout it is, as the goroutine path would.
		return nil, ctx.Err()
	}
	return res, err
}

// runHandler is the function runsync runs: it reads the call from the
// context, so that no closure is allocated per call.
func runHandler(ctx context.Context) (*Result, error) {
	c := ToolCallFromContext(ctx)
	return c.Spec.Handler(ctx, c.Args)
}

// invoke runs the handler under its timeout with panic recovery and checks
// the result against the output schema.
//
// The handler runs in a goroutine of its own (runsync.Run), so that the
// caller never waits past the deadline even when the handler ignores ctx;
// a spec that declares HonorsContext runs on the caller's goroutine, under
// the same deadline and panic recovery.
// When ctx can never be cancelled, the handler's context is a callCtx kept
// in the call's own allocation instead of a context.WithTimeout and a
// context.WithValue.
func (e *Executor) invoke(ctx context.Context, st *callState, call *ToolCall) (*Result, error) {
	timeout := e.timeoutOf(st.timeout, call.Spec)
	started := time.Now()
	var res *Result
	var err error
	if ctx.Done() == nil {
		hctx := &st.hctx
		if !st.hctxUsed.CompareAndSwap(false, true) { // a hook called next again
			hctx = new(callCtx)
		}
		hctx.Start(ctx, call, started.Add(timeout))
		if call.Spec.HonorsContext {
			res, err = runsync.Recover(hctx, runHandler)
			if err == nil && hctx.Err() != nil { // finished, but late
				res, err = nil, hctx.Err()
			}
		} else {
			res, err = runsync.Run(hctx, 0, runHandler)
		}
		hctx.Stop()
	} else {
		runTimeout := timeout
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= timeout {
			runTimeout = 0 // ctx ends first: no need for a deadline of our own
		}
		if call.Spec.HonorsContext {
			res, err = recoverWithin(withCall(ctx, call), runTimeout)
		} else {
			res, err = runsync.Run(withCall(ctx, call), runTimeout, runHandler)
		}
	}
	if err != nil {
		var pe *runsync.PanicError
		switch {
		case errors.As(err, &pe):
			e.logger.Error("adapter: tool handler panicked", "tool", call.Tool, "call_id", call.CallID, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
			return nil, &Error{Kind: KindToolError, Message: "the tool failed unexpectedly (it panicked)", Err: err}
		case ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled):
			return nil, &Error{Kind: KindCancelled, Message: "the caller cancelled the call", Err: ctx.Err()}
		case errors.Is(err, context.DeadlineExceeded):
			return nil, &Error{Kind: KindTimeout, Message: e.timeoutMessage(ctx, st, call, time.Since(started)), Err: err}
		}
		return nil, toolError(err, "", "")
	}
	if err := st.compiled.checkResult(res); err != nil {
		return nil, err
	}
	return res, nil
}

// finish records the call in the ledger and ends its span.
func (e *Executor) finish(ctx context.Context, span trace.Span, st *callState, res *Result, err error) {
	call := &st.call
	outcome := ledger.OutcomeOK
	var msg string
	kerr, _ := err.(*Error)
	if err != nil && kerr == nil {
		var ke *Error // declared here: errors.As makes it escape
		if errors.As(err, &ke) {
			kerr = ke
		}
	}
	if kerr != nil {
		outcome = string(kerr.Kind)
		msg = kerr.Message
	}
	if span.IsRecording() {
		span.SetName("execute_tool " + call.Tool)
		span.SetAttributes(
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", call.Tool),
			attribute.String("gen_ai.tool.call.id", call.CallID),
			attribute.Bool("agentadapter.cache_hit", st.cacheHit),
		)
		if call.Spec != nil {
			span.SetAttributes(attribute.String("gen_ai.tool.description", call.Spec.Description))
		}
		if call.RunID != "" {
			span.SetAttributes(attribute.String("agentadapter.run.id", call.RunID))
		}
		if kerr != nil {
			span.SetAttributes(attribute.String("error.type", string(kerr.Kind)))
			span.SetStatus(codes.Error, msg)
		}
	}
	span.End()
	if e.ledger == nil {
		return
	}
	r := records.Get().(*ledger.Record)
	*r = ledger.Record{
		Time: st.start, CallID: call.CallID, RunID: call.RunID, Tool: call.Tool,
		Integration: call.Integration, Outcome: outcome, Message: msg,
		Ticket: st.ticket, Approver: st.approver, Requester: st.requester, CacheHit: st.cacheHit,
		Duration: e.now().Sub(st.start),
	}
	if call.Spec != nil {
		r.Source, r.Credential = call.Spec.Source.String(), call.Spec.Source.Credential
	}
	if call.Identity != nil {
		r.Subject = call.Identity.Subject
	}
	if st.approval != 0 {
		r.Approval = st.approval.String()
	}
	// The ledger reads the arguments after Do returns: copy them when they
	// may be the caller's (or a hook's, or an approver's) buffer.
	args, private := st.valid, st.argsPrivate && !st.argsChanged
	if args == nil && len(st.reqArgs) > 0 {
		args, private = st.reqArgs, false
		if len(args) > 64<<10 || !json.Valid(args) {
			// Arguments that failed to parse may still hold a secret the
			// redaction cannot find: they are recorded by size and hash.
			args, private = redact.Unparsable(args), true
		}
	}
	if !private {
		args = bytes.Clone(args)
	}
	r.Args = args
	if !st.argsChanged && st.valid != nil {
		r.ArgsHash = st.argsHash
	}
	if res != nil {
		r.ResultBytes = resultSize(res)
	}
	e.ledger.enqueue(ctx, r, res)
}

func resultSize(r *Result) int {
	n := len(r.structJSON)
	for _, c := range r.Content {
		switch c := c.(type) {
		case *TextContent:
			n += len(c.Text)
		case *ImageContent:
			n += len(c.Data)
		case *AudioContent:
			n += len(c.Data)
		case *EmbeddedResource:
			if c.Resource != nil {
				n += len(c.Resource.Text) + len(c.Resource.Blob)
			}
		}
	}
	return n
}

// Calls returns how many calls the executor has started.
func (e *Executor) Calls() int64 { return e.calls.load() }

// LedgerStats reports the ledger writer's counters.
type LedgerStats struct {
	Written int64 // records the ledger accepted
	Failed  int64 // records the ledger returned an error for
	Dropped int64 // records dropped because the buffer stayed full
}

// LedgerStats returns the ledger writer's counters (zero without a ledger).
func (e *Executor) LedgerStats() LedgerStats {
	if e.ledger == nil {
		return LedgerStats{}
	}
	return e.ledger.stats()
}

// Flush waits until every record enqueued so far has been handed to the
// ledger and, for a ledger that buffers too (one with a Flush(ctx) error
// method, as the database stores have), stored by it; or until ctx ends.
func (e *Executor) Flush(ctx context.Context) error {
	if e.ledger == nil {
		return nil
	}
	if err := e.ledger.flush(ctx); err != nil {
		return err
	}
	if f, ok := e.opts.Ledger.(interface{ Flush(context.Context) error }); ok {
		return f.Flush(ctx)
	}
	return nil
}

// Close is Shutdown without a deadline: it waits as long as the ledger
// takes to accept the buffered records.
func (e *Executor) Close() error { return e.Shutdown(context.Background()) }

// Shutdown flushes the ledger and stops its writer goroutine, waiting until
// the ledger has taken the buffered records or ctx ends, whichever comes
// first; in the second case it returns ctx's error and the writer finishes
// in the background (a ledger that blocks forever keeps it). Calls made
// after Shutdown still run but are not recorded (they are counted as
// dropped). It may be called more than once.
func (e *Executor) Shutdown(ctx context.Context) error {
	if e.ledger == nil {
		return nil
	}
	return e.ledger.shutdown(ctx)
}
