package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// copyTree copies the fixture to a temporary directory.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func write(t *testing.T, root string, files []File) {
	t.Helper()
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(f.Path)), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// goFix runs go fix -inline until it has applied every fix: it stops at
// conflicting edits and asks to be run again.
func goFix(t *testing.T, dir string) {
	t.Helper()
	for range 5 {
		cmd := exec.Command("go", "fix", "-inline", "./use")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
		out, err := cmd.CombinedOutput()
		if err == nil {
			return
		}
		if !strings.Contains(string(out), "Re-run the command") {
			t.Fatalf("go fix -inline: %v\n%s", err, out)
		}
	}
	t.Fatal("go fix -inline still has fixes to apply after 5 runs")
}

// TestGolden generates the fixture's compat.go and CHANGELOG.md, compares
// them with testdata/golden, builds and vets the result, checks that a
// second run changes nothing, and that go fix -inline rewrites a user of
// every old name.
func TestGolden(t *testing.T) {
	root := copyTree(t, filepath.Join("testdata", "src"))
	files, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"CHANGELOG.md", "old/compat.go"}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
		golden := filepath.Join("testdata", "golden", strings.ReplaceAll(f.Path, "/", "_")+".golden")
		if *update {
			if err := os.WriteFile(golden, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		g, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(g, f.Data) {
			t.Errorf("%s differs from %s (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", f.Path, golden, f.Data, g)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("generated %q, want %q", got, want)
	}
	write(t, root, files)
	again, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range again {
		if !bytes.Equal(f.Data, files[i].Data) {
			t.Errorf("a second run changes %s:\n%s", f.Path, f.Data)
		}
	}
	goCmd(t, root, "build", "./...")
	goCmd(t, root, "vet", "./...")
	goFix(t, root)
	goCmd(t, root, "build", "./...")
	use, err := os.ReadFile(filepath.Join(root, "use", "use.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, old := range []string{"Discard", "OldSet", "OpenSet", "Reset", "Legacy", "Total", "MaxOpen"} {
		if strings.Contains(string(use), "old."+old) {
			t.Errorf("go fix -inline left old.%s in use/use.go:\n%s", old, use)
		}
	}
	// A var cannot be inlined: the sentinel keeps its old name.
	if !strings.Contains(string(use), "old.ErrGone") {
		t.Errorf("use/use.go lost old.ErrGone:\n%s", use)
	}
}

// TestErrors checks that a table compatgen cannot honour fails with the
// line and the reason.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, table, extra, want string
	}{
		{"hand-written", "old.Current\tnewpkg.Limit\n", "", "declared by hand in"},
		{"missing", "old.Gone\tnewpkg.Nowhere\n", "", "newpkg.Nowhere is not declared"},
		{"no package", "old.Gone\tnothere.X\n", "", "package nothere"},
		{"one column", "old.Gone\n", "", "want old<TAB>new"},
		{"unexported", "old.Gone\tnewpkg.limit\n", "", "exported Name"},
		{"duplicate", "old.A\tnewpkg.Limit\nold.A\tnewpkg.Limit\n", "", "renamed already on line 1"},
		{"unexported in signature", "old.Hidden\tnewpkg.Hide\n", "package newpkg\n\ntype secret int\n\nfunc Hide(s secret) {}\n", "unexported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := copyTree(t, filepath.Join("testdata", "src"))
			if err := os.WriteFile(filepath.Join(root, "docs", "renames.tsv"), []byte(tc.table), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.extra != "" {
				if err := os.WriteFile(filepath.Join(root, "newpkg", "extra.go"), []byte(tc.extra), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Generate(root)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Generate = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestRepoUpToDate checks that the repository's compat.go files and
// CHANGELOG.md are what the table generates (go run ./internal/compatgen
// from the repository root rewrites them).
func TestRepoUpToDate(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, TablePath)); os.IsNotExist(err) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing", TablePath)
		}
		t.Skipf("%s does not exist yet", TablePath)
	}
	files, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		have, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err != nil || !bytes.Equal(have, f.Data) {
			t.Errorf("%s is stale: run go run ./internal/compatgen from the repository root", f.Path)
		}
	}
}
