// Package adapter defines tools once — a typed Go function or a raw JSON
// schema with a handler — and runs them, governed the same way, behind any
// agent framework or MCP.
//
//	type AddArgs struct {
//		A int `json:"a" jsonschema:"first addend"`
//		B int `json:"b" jsonschema:"second addend"`
//	}
//
//	reg := registry.New()
//	reg.MustRegister(adapter.MustTool("add", "Add two integers",
//		func(ctx context.Context, in AddArgs) (int, error) { return in.A + in.B, nil },
//		&adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: new(bool)}}))
//
//	exec := adapter.NewExecutor(reg, nil)
//	defer exec.Close()
//	res, err := exec.Call(ctx, "add", json.RawMessage(`{"a": 2, "b": 3}`))
//	if err != nil {
//		log.Fatal(err)
//	}
//	structured, _ := res.StructuredJSON()
//	fmt.Println(adapter.Render(res, nil)) // 5: the text channel, for the model
//	fmt.Println(string(structured))       // {"result":5}: the structured channel
//
// The package's example "doc" runs this code. The tool is marked read-only
// and closed-world so that an approval port, once the executor has one,
// does not hold it (see Annotations below).
//
// Agent code calls tools through an [Executor], which adds policy (approval,
// guards, limits, timeouts, cache, ledger); [Spec.CallDirect] runs one tool
// bare, skipping all of it, and is meant for tests. "Call" is always this
// verb — run a tool on arguments, get its [Result] — with policy
// ([Executor.Call]) or, named so, without ([Spec.CallDirect]); the call in
// flight, as hooks and guards see it, is a [ToolCall].
//
// # Specs
//
// A [Spec] is one tool: name, title, description, input and output JSON
// schemas, [Annotations] (as in MCP, an unset destructive or open-world hint
// means true), targets (the integrations that export it; empty means all),
// tags, timeout, [Source] (local, or the MCP server it was imported from)
// and a [Handler] over raw JSON.
//
// [NewTool] builds a spec from a func(ctx, In) (Out, error). Both schemas are
// inferred once, at construction, with github.com/google/jsonschema-go, and
// compiled once into validators; a call only validates, decodes, runs and
// encodes. In must be a struct, a map with string keys, or any (any JSON
// object). [NewRawTool] takes the input schema (which must have type
// "object") and a handler; [ToolOptions.OutputSchema] gives its output
// contract. Construction checks the name and the schemas and returns an
// error; the Must variants ([MustTool], [MustRawTool]) panic instead and are
// meant for registration at start-up. A [Spec] written as a literal (as
// the mcpadapter package makes for imported tools) is checked by
// [Spec.Check], which registries call, and its schemas are compiled on its
// first call, or by [Spec.Compile]: a schema that does not compile then
// fails every call of that tool with a [KindToolError].
//
// A null a model sends for an optional parameter is the parameter left
// out: at the top level of the input schema, a null member whose property
// is not required and whose schema refuses null (such as {"type":
// "boolean"}) is removed before validation, so a default fills it in, and
// the tool, the approval and the ledger see the arguments without it (the
// record does not note the dropped key). A null for a required property,
// for a property whose schema accepts null ({"type": ["boolean",
// "null"]}, an anyOf with {"type": "null"}) or below the top level is
// validated as before.
//
// Inference describes JSON, not Go shapes: []byte is a base64 string,
// encoding.TextMarshaler types are strings, json.RawMessage is any JSON,
// nil maps and slices may be null, and maps with integer keys are objects
// with integer property names. Other custom json.Marshaler types are
// described by their Go shape; map them with [ToolOptions.For]
// (jsonschema.ForOptions.TypeSchemas) when their JSON differs.
//
// # Annotations
//
// A local tool gets its [Annotations] from [ToolOptions.Annotations], given
// to [NewTool], [NewRawTool] or their Must variants, and from nowhere else;
// an imported MCP tool gets its server's, trusted only when the server is
// (an untrusted server's tools count as destructive and open-world whatever
// they say; see the mcpadapter package).
//
// As in MCP, an unset Destructive or OpenWorld hint means true, so a tool
// built with nil options, or with options that leave Annotations zero, is
// destructive and open-world ([Annotations.IsDestructive],
// [Annotations.IsOpenWorld]). The default approval policy,
// [ApproveByAnnotations], holds every call of a destructive or open-world
// tool, so once the executor has an approval port ([ApprovalOptions.Port],
// such as a [Deferred]) even a harmless get_time built with nil options is
// held with a ticket. ReadOnly alone makes a tool non-destructive, not
// closed-world. Mark a harmless tool read-only and closed-world
// (new(bool) is a pointer to false):
//
//	adapter.MustTool("get_time", "The current time.", now,
//		&adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: new(bool)}})
//
// A read-only tool that does reach outside (a web search) is open-world:
// rather than mislabel it, exempt it by name with
// [ApprovalOptions.Tools] (map[string]ApprovalPolicy{"search": ApproveNever}).
// The executor also caches only read-only or idempotent tools
// ([CacheOptions.Tools]). The package's example "readmeAnnotations" runs
// both kinds of tool behind a Deferred port.
//
// # Output rules
//
// A result travels on two channels: [Result.Content] for the model and
// [Result.Structured] for the program. Typed tools follow the structured-
// output rules of the MCP Python SDK (FastMCP), the reference for what an
// MCP tool's result looks like: the return type is the output schema, and
// the model's text is the value as the SDK would show it.
//
//   - An object-shaped Out — a struct, a map with string keys — is the
//     structured content as is, and its schema is the output schema; its
//     text is its JSON. A nil map is {}.
//   - Any other Out — string, numbers, bool, []byte, slices, arrays, maps
//     with non-string keys such as map[int]T, types with their own JSON
//     encoding such as time.Time — is wrapped as {"result": value}, and the
//     output schema is wrapped to match. Named struct element types of
//     lists and maps are $defs references. A nil slice is [].
//   - A pointer *T is Go's optional (Python's Optional[T]): it is always
//     wrapped, its schema admits null ({"anyOf": [{"type": "null"}, T]}
//     for a named struct, {"type": ["null", ...]} otherwise), and nil is the
//     valid result {"result": null} with no content blocks. (Return a
//     struct value, not a pointer, for a result that is never absent.)
//   - Out = any follows the dynamic value, through pointers: a struct or
//     string-keyed map is as is, anything else is wrapped; nil is
//     {"result": null}. With [ToolOptions.OutputSchema] the value is
//     validated against that schema; without, there is nothing to validate.
//   - The text channel, as the Python SDK converts a result to content: a
//     string is its own text (not JSON-quoted); a list is the blocks of its
//     elements in order, nested lists flattened, so a list of strings gives
//     one block per string and an empty list gives no block at all; nil
//     (a nil pointer, a nil element) gives no block; anything else is its
//     JSON. JSON is never HTML-escaped: <, > and & stay as they are.
//
// Where Go differs, by necessity or on purpose: Go has no unions or tuples,
// so there is no Union[A, B] output (use Out = any with an explicit
// schema) and arrays are lists of one element type; []byte is a base64
// string (as encoding/json writes it), not UTF-8 text; JSON text is compact,
// where the Python SDK indents it by two spaces; a nil map is {} and a nil
// slice [], where Go would write null. What a model finally reads of a
// result — media, resources, a structured-only result — is decided by
// [Render], the same for every integration.
//
// Every result is validated against the output schema before it leaves
// ([Spec.CallDirect], the executor): a mismatch is a [KindToolError] whose message
// names the field, never a corrupted result. A type that yields no usable
// schema — a struct with no exported fields, a channel, a function, a
// complex number, a map with bool keys — fails construction rather than
// degrading silently. Two options in [ToolOptions.Output] change this:
// [OutputText] turns structured output off (text only, no output schema, no
// validation; a string is shown unquoted), and [OutputRequired] makes it
// mandatory (construction fails when no schema can be produced, as for
// Out = any).
//
// # Errors and the model payload
//
// Every failed call is an [*Error] with a [Kind]. Each kind has a sentinel
// for [errors.Is] (errors.Is(err, adapter.ErrTimeout)); [Error.Unwrap]
// reaches the cause, which is for programs only. [ModelPayload] renders a
// model-facing error as the stable JSON text the model reads,
//
//	{"error":{"kind":"tool_error","message":"...","tool":"weather"}}
//
// built from [Error.Message] alone: no cause, no stack trace, no Go type
// names. Connection and internal errors are infrastructure faults: they stay
// Go errors for the integration to return ([Kind.ModelFacing]).
//
//	kind                 model-facing  meaning
//	args_invalid         yes           arguments too large, not JSON, or not matching the input schema
//	tool_error           yes           the handler failed or panicked, or its result broke the output schema
//	approval_denied      yes           an approver refused the call
//	approval_pending     yes           the call awaits approval; the payload carries the ticket
//	guardrail_blocked    yes           an input or output guard refused the call
//	run_limit_exceeded   yes           the run's call limits are used up
//	timeout              yes           the tool missed its deadline
//	not_found            yes           no tool of that name
//	connection           no            the transport to a remote tool failed
//	internal             no            a fault of the machinery (a panicking hook, an invalid spec)
//
// A handler reports a failure by returning an error: a plain error becomes
// a tool_error whose message is the error's text (so it must be fit for a
// model to read); an [*Error] keeps its kind.
//
// # Executor
//
// An [Executor] looks tools up in a [Catalog] (a registry.Registry is one)
// and runs each call through one pipeline, in this order: argument checks,
// hooks, input guards, approval, run limits, cache, timeout with panic
// recovery around the handler, output validation, output guards, the
// ledger and a span. The [Executor] type documents each stage and the error
// kind it produces; integrations hold no policy of their own.
//
//	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
//		Approval: adapter.ApprovalOptions{Port: &adapter.Deferred{}},
//		Cache:    &adapter.CacheOptions{Tools: map[string]time.Duration{"get_weather": time.Minute}},
//		Ledger:   adapter.NewMemoryLedger(0),
//	})
//	defer exec.Close()
//	res, err := exec.Call(ctx, "get_weather", json.RawMessage(`{"city":"Paris"}`))
//
// # Approval
//
// A call that needs approval (by [ApprovalOptions.Policy]: by default
// [ApproveByAnnotations], see Annotations above) is put to the executor's
// approval port: a blocking port decides at once; a [Deferred] port answers
// [KindApprovalPending] with a one-use ticket bound to the tool, the
// canonical hash of the arguments and the caller's scope, to be approved or
// denied later from any goroutine. Ports, tickets, ticket stores, scopes and
// standing decisions are the adapter/approval package's, which documents
// them; the executor keeps only which calls need approval and how a
// decision becomes a result or an [*Error]. The integrations map a pending
// call onto their framework's own pause (an eino interrupt, a genkit
// interrupt, an MCP elicitation).
//
// # Ledger
//
// [ExecutorOptions.Ledger] records every call exactly once, whatever its
// outcome, with secrets in its arguments masked ([ExecutorOptions.Redact]):
// from a goroutine of the executor's own, in batches, or on the call's path
// for a durable ledger that asks for it; a full buffer delays a call at most
// [ExecutorOptions.LedgerWait] before its record is dropped and counted.
// Records, the memory and JSONL ledgers, queries and the tamper-evident hash
// chain with its verification are the adapter/ledger package's, which
// documents them.
//
// # Streaming
//
// [NewStreamTool] builds a tool whose handler produces its result in parts;
// [Executor.Stream] yields them as they come, through the same pipeline as
// [Executor.Do]. A handler that honours its context can say so
// ([Spec.HonorsContext]) and is then run without a goroutine of its own.
//
// # Names
//
// A tool name is 1 to 64 characters from [A-Za-z0-9_-] ([ValidateName]),
// the strictest rule among the model providers the supported frameworks
// talk to, so one name works everywhere. MCP allows 128 characters and '.';
// the mcpadapter package maps such names to valid local ones when it
// imports tools, while [Source.RemoteName] keeps the original for the wire.
package adapter
