// Compatgen writes the compatibility aliases of moved and renamed names
// from one table, docs/renames.tsv, so that the aliases and the CHANGELOG's
// rename table never drift:
//
//	go run ./internal/compatgen          # from the repository root
//
// Each line of the table is
//
//	old/path.OldName<TAB>new/path.NewName[<TAB>note]
//
// with import paths relative to the root module's path (adapter, not
// github.com/agentadapter/agentadapter/adapter). Blank lines and lines
// starting with # are ignored.
//
// For each old package compatgen writes compat.go (a generated file) with,
// per row, a type alias (keeping type parameters), a const, a forwarding
// func with the new func's exact signature, each marked //go:fix inline so
// that go fix -inline rewrites users, or a var (a var cannot be inlined). It
// then rewrites the table in CHANGELOG.md between <!-- renames:begin --> and
// <!-- renames:end -->, adding the markers under a "## v0.2.0 (unreleased)"
// heading when they are missing.
//
// A func whose note starts with "by hand" gets no //go:fix inline (go fix
// would break its callers; the note says why), as one whose parameters take
// a renamed type.
//
// A name the table moves must not also be declared by hand in its old
// package: compatgen fails and names the file.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	root := flag.String("root", ".", "repository root (holds go.mod, docs/renames.tsv and CHANGELOG.md)")
	flag.Parse()
	files, err := Generate(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compatgen:", err)
		os.Exit(1)
	}
	for _, f := range files {
		path := filepath.Join(*root, filepath.FromSlash(f.Path))
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "compatgen:", err)
			os.Exit(1)
		}
	}
}
