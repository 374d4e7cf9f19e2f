// Package layout holds the repository's layout checks (go test
// ./internal/layout): the size of every package and the import rules
// between the modules, as docs/architecture.md states them. It has no
// code of its own.
package layout
