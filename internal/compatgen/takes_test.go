package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// TestTakesRenamed pins which forwarders lose //go:fix inline: those whose
// parameters take a type of the new package that is itself renamed (go fix
// drops a file's fixes where such a call's arguments name the old type).
func TestTakesRenamed(t *testing.T) {
	const src = `package caller
type Identity struct{}
type Other struct{}
func WithIdentity(ctx any, id *Identity) any { return nil }
func Many(ids ...[]map[string]Identity) {}
func Plain(s string, o Other) *Identity { return nil }
func Foreign(x ast.Ident) {}
`
	f, err := parser.ParseFile(token.NewFileSet(), "caller.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	g := &gen{renamed: map[string]bool{"adapter/caller.Identity": true}}
	want := map[string]bool{"WithIdentity": true, "Many": true, "Plain": false, "Foreign": false}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if got := g.takesRenamed("adapter/caller", fd); got != want[fd.Name.Name] {
			t.Errorf("takesRenamed(%s) = %v, want %v", fd.Name.Name, got, want[fd.Name.Name])
		}
	}
}

// TestByHand pins the note that leaves a forwarder to rename by hand.
func TestByHand(t *testing.T) {
	for note, want := range map[string]bool{
		"by hand: go fix would add an unused import of net": true,
		"by hand":                           true,
		"shape changed: req.Call.X → req.X": false,
		"":                                  false,
	} {
		if got := byHand(Row{Note: note}); got != want {
			t.Errorf("byHand(%q) = %v, want %v", note, got, want)
		}
	}
}
