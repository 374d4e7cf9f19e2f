// Package tasks is the server side of the MCP tasks extension (SEP-2663)
// an export serves: the store of an exporter's tasks, bounded per caller
// and in total, the minting of an imported call's task, the wire forms
// the import side shares, and AskInput's context.
package tasks
