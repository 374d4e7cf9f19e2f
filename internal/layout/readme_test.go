package layout

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeSources are the test files whose marked code the README prints,
// each of them run by its own module's tests.
var readmeSources = []string{
	"adapter/example_readme_test.go",
	"integrations/einoadapter/example_readme_test.go",
	"store/sqlite/example_readme_test.go",
}

var readmeMarker = regexp.MustCompile(`^\s*// README: (begin|end)( \w+)?$`)

// TestReadmeSnippets checks that each README snippet a test runs is printed
// in README.md exactly as the test has it: the lines between a
// "// README: begin" and "// README: end" marker, without those marked
// "README: omit", with those marked "README: uncomment" uncommented
// (indentation aside: an omitted wrapper indents the lines it holds). A
// snippet edited on one side only fails.
func TestReadmeSnippets(t *testing.T) {
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := unindent(string(b))
	var found int
	for _, src := range readmeSources {
		b, err := os.ReadFile(filepath.Join(root, src))
		if err != nil {
			t.Fatal(err)
		}
		for name, snippet := range snippets(string(b)) {
			found++
			if !strings.Contains(readme, unindent(snippet)) {
				t.Errorf("%s: snippet %q is not in README.md as the test runs it:\n%s", src, name, snippet)
			}
		}
	}
	if found < len(readmeSources) {
		t.Fatalf("found %d snippets in %d files: the markers moved", found, len(readmeSources))
	}
}

// snippets returns the marked snippets of a file, by name, as the README
// prints them.
func snippets(src string) map[string]string {
	out := map[string]string{}
	var name string
	var lines []string
	in := false
	for _, l := range strings.Split(src, "\n") {
		if m := readmeMarker.FindStringSubmatch(l); m != nil {
			if m[1] == "begin" {
				in, name, lines = true, strings.TrimSpace(m[2]), nil
				continue
			}
			in = false
			out[name] = dedent(lines)
			continue
		}
		if !in {
			continue
		}
		switch {
		case strings.HasSuffix(l, "// README: omit"):
			continue
		case strings.HasSuffix(l, "// README: uncomment"):
			l = strings.TrimSuffix(strings.TrimSuffix(l, "// README: uncomment"), " ")
			indent := len(l) - len(strings.TrimLeft(l, "\t"))
			l = l[:indent] + strings.TrimPrefix(l[indent:], "// ")
		}
		lines = append(lines, l)
	}
	return out
}

// unindent removes every line's leading tabs.
func unindent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, "\t")
	}
	return strings.Join(lines, "\n")
}

// dedent removes the first line's leading tabs from every line.
func dedent(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	indent := lines[0][:len(lines[0])-len(strings.TrimLeft(lines[0], "\t"))]
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, indent)
	}
	return strings.Join(lines, "\n") + "\n"
}
