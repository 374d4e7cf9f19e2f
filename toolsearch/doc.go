// Package toolsearch finds tools in a large catalog: a search index over a
// registry, kept current as specs come and go, and the two meta-tools,
// search_tools and call_tool, that let a model find and call any of
// thousands of tools while it is sent the definitions of two.
//
//	ix, err := toolsearch.New(reg, nil)
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer ix.Close()
//	hits, err := ix.Search(ctx, "read a file", 5, registry.Filter{Target: adapter.TargetEino}.Match)
//	// Or hand a model the meta-tools in place of the full list:
//	tools := ix.Tools(&toolsearch.ToolsOptions{Filter: kit.Filter(registry.Filter{}, adapter.TargetEino)})
//
// # Ranking
//
// The built-in ranker is [BM25], Okapi BM25 over the spec's name, title,
// description, and argument names and descriptions, in memory, in pure Go
// (no dependency: a library was measured and did not fit, see the
// repository's notes). Results come in a deterministic order: score, then
// name, so that the definitions sent to a model are the same from turn to
// turn (prompt caching). A [Ranker] of one's own (embeddings) plugs in
// through [Options].
//
// # Policy before results
//
// What a caller may find is what it may call: [Index.Search] takes the
// caller's predicate (the Match of the filter its listings use) and a spec
// it denies is never ranked, returned or described. The meta-tools take the
// same filter ([ToolsOptions]); call_tool answers a denied or unknown name
// as the executor answers an unknown tool, and runs an allowed one through
// the executor exactly as a direct call ([adapter.Spec.Forward]): the same
// approval, limits and cache, one ledger record under the tool's own name.
// A quarantined imported tool is whatever the registry holds: a new tool
// held for review is not registered, so not found, until it is accepted.
//
// # Always-loaded tools and the tools found so far
//
// [ToolsOptions].Always names tools sent beside the meta-tools on every
// turn (names or path.Match patterns). With [ToolsOptions].Deferred, Tools
// returns every other tool the filter admits too, after them: register
// them all with the agent, so that a found tool can be called directly,
// and narrow what the model is sent per turn with [Index.Loaded] (a model
// middleware or wrapper: each integration's Example_foundSoFar shows its
// few lines): the meta-tools, the always-loaded tools and what
// search_tools returned earlier in the run ([Index.Found], per
// [adapter.Run]: open one with adapter.WithRun around the agent's run).
// Every tool Tools returns beside the meta-tools resolves each call
// against the registry and the caller's policy at the time of the call,
// and Loaded checks them again each turn: a tool unregistered, quarantined
// or denied since is neither sent nor run.
//
// # Errors
//
// Search fails with [ErrQueryTooLong], [ErrClosed] or the context's error;
// search_tools answers a bad query with args_invalid.
package toolsearch
