// Package bench holds the side-by-side benchmarks that compare one MCP tool
// call made directly with the go-sdk against the same call made through
// agentadapter's import, executor and each framework integration, over
// in-memory, stdio and streamable HTTP transports; and the import of a
// server with 1,000 tools into each framework.
//
// Run the whole suite, with ratio tables, from the repository root:
//
//	scripts/bench
//
// Sub-benchmarks are named impl=gosdk, impl=executor, impl=eino,
// impl=genkit and impl=langchaingo so that benchstat's -col /impl prints
// them side by side, with ratios against the go-sdk baseline.
package bench
