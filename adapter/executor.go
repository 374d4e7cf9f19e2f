package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/singleflight"

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
type Invoker func(ctx context.Context, c *Call) (*Result, error)

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
	Name   string
	Input  func(ctx context.Context, c *Call) error
	Output func(ctx context.Context, c *Call, r *Result) error
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
	Hooks   []Hook
	Guards  []Guard
	// Approval configures approval; with no Port, no call is held.
	Approval ApprovalOptions
	// Cache, if set, caches results of the tools it lists.
	Cache *CacheOptions
	// Limits are the run limits for runs that set none of their own.
	Limits Limits
	// Ledger, if set, records every call.
	Ledger Ledger
	// LedgerBuffer is how many records may wait for the ledger; zero means 4096.
	LedgerBuffer int
	// LedgerWait is how long a call may wait for room in a full ledger
	// buffer before its record is dropped (and counted); zero means 50 ms.
	LedgerWait time.Duration
	// Redact masks secrets in the arguments the ledger records; nil means
	// RedactKeys(DefaultSecretKeys...). It runs on the ledger's goroutine.
	Redact func(tool string, args json.RawMessage) json.RawMessage
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
// A cached result is only served to a call that passed approval: policy
// holds for every call, cached or not.
//
// An Executor is safe for concurrent use. Close it to stop its ledger writer.
type Executor struct {
	tools    Catalog
	opts     ExecutorOptions
	maxArgs  int
	timeout  time.Duration
	tracer   trace.Tracer
	logger   *slog.Logger
	now      func() time.Time
	policy   ApprovalPolicy
	cache    Cache
	cacheTTL time.Duration
	sf       singleflight.Group
	ledger   *ledgerWriter
	warned   sync.Map // tool name → warned about cache misconfiguration
	calls    atomic.Int64
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
	e.logger = opts.Logger
	if e.logger == nil {
		e.logger = slog.Default()
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
		redact := opts.Redact
		if redact == nil {
			redact = RedactKeys(DefaultSecretKeys...)
		}
		e.ledger = newLedgerWriter(opts.Ledger, opts.LedgerBuffer, opts.LedgerWait, redact, e.logger)
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
var defaultOnce sync.Once

// SetDefault makes e the default executor, used by integrations that are
// given none. It is read at call time, so it may be set after the tools
// are built.
func SetDefault(e *Executor) { defaultExecutor.Store(e) }

// Default returns the default executor: the one set with [SetDefault], or
// else an executor with default options and no catalog.
func Default() *Executor {
	if e := defaultExecutor.Load(); e != nil {
		return e
	}
	defaultOnce.Do(func() { defaultExecutor.CompareAndSwap(nil, NewExecutor(nil, nil)) })
	return defaultExecutor.Load()
}

// Request is one call to [Executor.Do].
type Request struct {
	// Tool is the name to look up in the catalog.
	Tool string
	// Spec, if set, is called instead of looking Tool up.
	Spec *Spec
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
	Approval ApprovalPort
}

// Call runs the named tool with raw JSON arguments.
func (e *Executor) Call(ctx context.Context, name string, args json.RawMessage) (*Result, error) {
	return e.Do(ctx, &Request{Tool: name, Args: args})
}

// Do runs one call through the pipeline. Every error it returns is an
// [*Error].
func (e *Executor) Do(ctx context.Context, req *Request) (res *Result, err error) {
	start := e.now()
	name := req.Tool
	if name == "" && req.Spec != nil {
		name = req.Spec.Name
	}
	call := &Call{ID: req.CallID, Tool: name, Integration: req.Integration, Native: req.Native, Ticket: req.Ticket, Identity: IdentityFromContext(ctx)}
	if call.ID == "" {
		call.ID = newID("call_")
	}
	if r := RunFromContext(ctx); r != nil {
		call.RunID = r.id
	}
	ctx, span := e.tracer.Start(ctx, "execute_tool", trace.WithSpanKind(trace.SpanKindInternal))
	st := &callState{start: start}
	defer func() {
		if p := recover(); p != nil { // a bug in the pipeline itself: contain it
			res, err = nil, &Error{Kind: KindInternal, Tool: name, CallID: call.ID, Message: "internal error", Err: &runsync.PanicError{Value: p}}
		}
		e.finish(ctx, span, call, req, st, res, err)
	}()
	e.calls.Add(1)
	spec := req.Spec
	if spec == nil {
		if e.tools != nil {
			spec, _ = e.tools.Lookup(name)
		}
		if spec == nil {
			return nil, &Error{Kind: KindNotFound, Tool: name, CallID: call.ID, Message: fmt.Sprintf("no tool named %q", name)}
		}
	}
	call.Spec = spec
	c, cerr := spec.compiled()
	if cerr != nil {
		return nil, &Error{Kind: KindInternal, Tool: name, CallID: call.ID, Message: "invalid tool spec", Err: cerr}
	}
	args, aerr := c.prepareArgs(req.Args, e.maxArgs)
	if aerr != nil {
		return nil, withTool(aerr, name, call.ID)
	}
	call.Args = args
	st.valid = args
	st.compiled = c
	st.req = req
	inv := e.core(st)
	for i := len(e.opts.Hooks) - 1; i >= 0; i-- {
		inv = containHook(e.opts.Hooks[i](inv))
	}
	res, err = inv(ctx, call)
	if err != nil {
		return nil, withTool(asError(err), name, call.ID)
	}
	if res == nil {
		return nil, &Error{Kind: KindToolError, Tool: name, CallID: call.ID, Message: "the tool returned no result"}
	}
	return res, nil
}

// callState carries what the pipeline learns about one call to the ledger.
type callState struct {
	start    time.Time
	valid    json.RawMessage // the arguments as validated
	compiled *compiled
	req      *Request
	approval Outcome
	approver string
	ticket   string
	cacheHit bool
}

func asError(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Kind: KindToolError, Message: err.Error(), Err: err}
}

func containHook(inv Invoker) Invoker {
	return func(ctx context.Context, c *Call) (res *Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				res, err = nil, &Error{Kind: KindInternal, Message: "a hook panicked", Err: &runsync.PanicError{Value: p}}
			}
		}()
		return inv(ctx, c)
	}
}

// core is the innermost invoker: everything after the hooks.
func (e *Executor) core(st *callState) Invoker {
	return func(ctx context.Context, call *Call) (*Result, error) {
		c := st.compiled
		if !sameBytes(call.Args, st.valid) { // a hook rewrote the arguments
			args, err := c.prepareArgs(call.Args, e.maxArgs)
			if err != nil {
				return nil, err
			}
			call.Args, st.valid = args, args
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
}

func sameBytes(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	return len(a) == 0 || &a[0] == &b[0]
}

func (e *Executor) approve(ctx context.Context, st *callState, call *Call) error {
	port := st.req.Approval
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
	hash, err := CanonicalHash(call.Args)
	if err != nil {
		return &Error{Kind: KindInternal, Message: "hashing arguments", Err: err}
	}
	d, err := port.Decide(ctx, &ApprovalRequest{Call: call, ArgsHash: hash})
	if err != nil {
		if ctx.Err() != nil {
			return &Error{Kind: KindTimeout, Message: "approval did not arrive before the deadline", Err: err}
		}
		return &Error{Kind: KindInternal, Message: "the approval port failed", Err: err}
	}
	st.approval, st.approver, st.ticket = d.Outcome, d.Approver, d.Ticket
	switch d.Outcome {
	case Approved:
		if len(d.Args) > 0 {
			args, err := st.compiled.prepareArgs(d.Args, e.maxArgs)
			if err != nil {
				return err
			}
			call.Args, st.valid = args, args
		}
		return nil
	case Denied:
		msg := "the call was denied"
		if d.Reason != "" {
			msg += ": " + d.Reason
		}
		return &Error{Kind: KindApprovalDenied, Message: msg, Ticket: d.Ticket}
	case Pending:
		return &Error{Kind: KindApprovalPending, Ticket: d.Ticket,
			Message: fmt.Sprintf("the call is waiting for approval (ticket %s); retry the same call once it is approved", d.Ticket)}
	}
	return &Error{Kind: KindInternal, Message: fmt.Sprintf("the approval port returned outcome %v", d.Outcome)}
}

// cached serves the call from the cache when the tool is cached, running
// the handler once for concurrent identical misses.
func (e *Executor) cached(ctx context.Context, st *callState, call *Call) (*Result, error) {
	ttl, ok := e.cacheable(call.Spec)
	if !ok {
		return e.invoke(ctx, st, call)
	}
	canon, err := CanonicalJSON(call.Args)
	if err != nil {
		return e.invoke(ctx, st, call)
	}
	key := call.Spec.Name + "\x00" + string(canon)
	if r, ok := e.cache.Get(ctx, key); ok {
		st.cacheHit = true
		return r, nil
	}
	ch := e.sf.DoChan(key, func() (any, error) {
		r, err := e.invoke(ctx, st, call)
		if err == nil {
			e.cache.Add(ctx, key, r, ttl)
		}
		return r, err
	})
	select {
	case v := <-ch:
		if v.Shared && v.Err == nil {
			st.cacheHit = true // served by another call's run of the handler
		}
		if v.Err != nil {
			return nil, v.Err
		}
		return v.Val.(*Result), nil
	case <-ctx.Done():
		return nil, &Error{Kind: KindTimeout, Message: "the tool did not finish before the deadline", Err: ctx.Err()}
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

// invoke runs the handler under its timeout with panic recovery and checks
// the result against the output schema.
func (e *Executor) invoke(ctx context.Context, st *callState, call *Call) (*Result, error) {
	timeout := st.req.Timeout
	if timeout <= 0 {
		timeout = call.Spec.Timeout
	}
	if timeout <= 0 {
		timeout = e.timeout
	}
	h := call.Spec.Handler
	args := call.Args
	hctx := withCall(ctx, call)
	res, err := runsync.Run(hctx, timeout, func(ctx context.Context) (*Result, error) {
		return h(ctx, args)
	})
	if err != nil {
		var pe *runsync.PanicError
		switch {
		case errors.As(err, &pe):
			e.logger.Error("adapter: tool handler panicked", "tool", call.Tool, "call_id", call.ID, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
			return nil, &Error{Kind: KindToolError, Message: "the tool failed unexpectedly (it panicked)", Err: err}
		case ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled):
			return nil, &Error{Kind: KindInternal, Message: "the call was canceled", Err: ctx.Err()}
		case errors.Is(err, context.DeadlineExceeded):
			return nil, &Error{Kind: KindTimeout, Message: fmt.Sprintf("the tool did not finish within %s", timeout), Err: err}
		}
		return nil, toolError(err, "", "")
	}
	if err := st.compiled.checkResult(res); err != nil {
		return nil, err
	}
	return res, nil
}

// finish records the call in the ledger and ends its span.
func (e *Executor) finish(ctx context.Context, span trace.Span, call *Call, req *Request, st *callState, res *Result, err error) {
	outcome := OutcomeOK
	var msg string
	var kerr *Error
	if err != nil && errors.As(err, &kerr) {
		outcome = string(kerr.Kind)
		msg = kerr.Message
	}
	if span.IsRecording() {
		span.SetName("execute_tool " + call.Tool)
		span.SetAttributes(
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", call.Tool),
			attribute.String("gen_ai.tool.call.id", call.ID),
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
	r := &Record{
		Time: st.start, CallID: call.ID, RunID: call.RunID, Tool: call.Tool,
		Integration: call.Integration, Outcome: outcome, Message: msg,
		Ticket: st.ticket, Approver: st.approver, CacheHit: st.cacheHit,
		Duration: e.now().Sub(st.start),
	}
	if call.Spec != nil {
		r.Source = call.Spec.Source.String()
	}
	if call.Identity != nil {
		r.Subject = call.Identity.Subject
	}
	if st.approval != 0 {
		r.Approval = st.approval.String()
	}
	if st.valid != nil {
		r.Args = st.valid
	} else if len(req.Args) <= 64<<10 {
		r.Args = req.Args
	}
	if res != nil {
		r.ResultBytes = resultSize(res)
	}
	e.ledger.enqueue(ctx, r)
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
func (e *Executor) Calls() int64 { return e.calls.Load() }

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
// ledger, or ctx ends.
func (e *Executor) Flush(ctx context.Context) error {
	if e.ledger == nil {
		return nil
	}
	return e.ledger.flush(ctx)
}

// Close flushes the ledger and stops its writer goroutine. Calls made after
// Close still run but are not recorded (they are counted as dropped).
func (e *Executor) Close() error {
	if e.ledger == nil {
		return nil
	}
	e.ledger.close()
	return nil
}
