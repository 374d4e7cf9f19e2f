// Package genkitadapter runs agentadapter tools as Genkit tools
// (github.com/firebase/genkit/go), every call through an
// [adapter.Executor], on the shared [kit].
//
//	g := genkit.Init(ctx)
//	signal.Reset(os.Interrupt, syscall.SIGTERM) // Init traps them for good
//	tools, err := genkitadapter.Tools(g, reg, exec, nil) // DefineTools registers them
//	if err != nil {
//		log.Fatal(err) // a name clash with a registered genkit tool
//	}
//	resp, err := genkit.Generate(ctx, g, ai.WithModelName("googleai/gemini-2.5-flash"),
//		ai.WithPrompt("What is 2+3?"), ai.WithTools(tools...),
//		ai.WithMiddleware(genkitadapter.UnknownToolsMiddleware(exec)))
//
// A tool's output is adapter.Render's text, media as data-URL parts; a
// model-facing error is the output, its payload ([kit.Triage]), as genkit
// aborts on a tool's error; a fault aborts; a held call interrupts the
// generation until [Resume]. Generate copies messages through
// encoding/json, rounding integers beyond 2^53. A call's id is the
// executor's (a restart's, its request's ref); a run scope is ctx's
// ([adapter.WithRun]), else the genkit trace's ([kit.TraceRuns]).
//
// genkit.Init traps SIGINT and SIGTERM for good; genkit's first span
// installs the global OpenTelemetry tracer provider; with GENKIT_ENV=dev,
// Init starts a reflection server on 127.0.0.1:3100 or above and writes
// .genkit beside go.mod.
package genkitadapter
