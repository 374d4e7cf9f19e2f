package config

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tailscale/hujson"
)

// The operator's reference (docs/config.md) and the JSON Schema of the
// configuration file (docs/agentadapter.schema.json) are generated from
// the types the loader decodes into and their fields' doc comments, so
// neither can drift from what Load accepts.

var update = flag.Bool("update", false, "rewrite docs/config.md and docs/agentadapter.schema.json")

// regenerate is the command that rewrites the generated files.
const regenerate = "cd cmd/agentadapter && go test ./internal/config -run TestReference -update"

// SchemaID is the $id of the published schema: what a file's "$schema" names.
const schemaID = "https://raw.githubusercontent.com/agentadapter/agentadapter/main/docs/agentadapter.schema.json"

var docsDir = filepath.Join("..", "..", "..", "..", "docs")

// field is one key of the file, as the reference shows it.
type field struct {
	key, goName string
	typ         reflect.Type
	doc         string
}

// object is one struct type of the file with its keys.
type object struct {
	name   string // heading
	doc    string
	paths  []string
	fields []field
}

// docs reads the doc comments of the package's struct types and their
// fields: type name -> field name -> text, and type name -> type doc.
func docs(t *testing.T) (fields map[string]map[string]string, types map[string]string) {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := goparser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, goparser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	fields, types = map[string]map[string]string{}, map[string]string{}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.TYPE {
					continue
				}
				for _, sp := range gd.Specs {
					ts := sp.(*ast.TypeSpec)
					doc := ts.Doc
					if doc == nil {
						doc = gd.Doc
					}
					types[ts.Name.Name] = text(doc)
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					m := map[string]string{}
					prev := ""
					for _, fl := range st.Fields.List {
						d := text(fl.Doc)
						if d == "" {
							d = text(fl.Comment)
						}
						for _, n := range fl.Names {
							// "Issuer and Audience, if set, ..." documents
							// the undocumented Audience that follows.
							if d == "" && prev != "" && regexp.MustCompile(`\b`+n.Name+`\b`).MatchString(prev) {
								m[n.Name] = prev
								continue
							}
							m[n.Name] = d
						}
						if d != "" {
							prev = d
						}
					}
					fields[ts.Name.Name] = m
				}
			}
		}
	}
	return fields, types
}

func text(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}

// jsonKey is a field's key in the file, or "" when it has none.
func jsonKey(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}

var durationType = reflect.TypeOf(Duration(0))

// transports are the server types Load reads; the aliases are other
// clients' spellings of http.
var transports = []string{"stdio", "http", "sse", "streamable-http", "streamableHttp", "streamable_http"}

// enums are the values editors complete for keys that take one of a few
// words, each with a configuration template that sets the key; TestSchema
// checks that Load takes every value and refuses another, so the list
// cannot drift from the checks. The empty string, the loader's "default",
// is left out: an editor should not suggest writing it.
var enums = map[string]struct {
	values   []string
	template string // %q is the value; %s, when there, the server's command or url
}{
	"ServerEntry.type":          {transports, `{"mcpServers": {"a": {"type": %q, %s}}}`},
	"ServerEntry.transportType": {transports, `{"mcpServers": {"a": {"transportType": %q, %s}}}`},
	"ServerPolicy.trust":        {[]string{"untrusted", "trusted"}, `{"mcpServers": {"a": {"command": "sh"}}, "agentadapter": {"servers": {"a": {"trust": %q}}}}`},
	"Approval.default":          {[]string{"annotations", "always", "never"}, `{"agentadapter": {"policy": {"approval": {"default": %q}}}}`},
	"Rule.approve":              {[]string{"required", "none"}, `{"agentadapter": {"policy": {"approval": {"rules": [{"approve": %q}]}}}}`},
	"Rule.annotation":           {[]string{"readOnly", "destructive", "idempotent", "openWorld"}, `{"agentadapter": {"policy": {"approval": {"rules": [{"approve": "none", "annotation": %q}]}}}}`},
	"Section.approver":          {[]string{"operator", "client"}, `{"agentadapter": {"approver": %q}}`},
	"Virtual.approver":          {[]string{"operator", "client"}, `{"agentadapter": {"virtualServers": {"v": {"approver": %q}}}}`},
}
var headings = map[string]string{"file": "File", "serverEntry": "ServerEntry"}

// walk lists the struct types reachable from the file's top level, in the
// order a reader meets them, with every path each is found at, and maps
// each type to its object.
func walk(t *testing.T) ([]*object, map[reflect.Type]*object) {
	fieldDocs, typeDocs := docs(t)
	var out []*object
	byType := map[reflect.Type]*object{}
	var visit func(rt reflect.Type, path string)
	visit = func(rt reflect.Type, path string) {
		for rt.Kind() == reflect.Pointer {
			rt = rt.Elem()
		}
		switch rt.Kind() {
		case reflect.Slice:
			if rt != rawType {
				visit(rt.Elem(), path+"[]")
			}
			return
		case reflect.Map:
			visit(rt.Elem(), path+".*")
			return
		case reflect.Struct:
		default:
			return
		}
		if o, ok := byType[rt]; ok {
			o.paths = append(o.paths, path)
			return
		}
		name := rt.Name()
		o := &object{name: name, doc: typeDocs[name], paths: []string{path}}
		if h, ok := headings[name]; ok {
			o.name = h
		}
		byType[rt] = o
		out = append(out, o)
		for i := 0; i < rt.NumField(); i++ {
			sf := rt.Field(i)
			key := jsonKey(sf)
			if key == "" {
				continue
			}
			o.fields = append(o.fields, field{key: key, goName: sf.Name, typ: sf.Type, doc: fieldDocs[name][sf.Name]})
		}
		for _, f := range o.fields {
			p := f.key
			if path != "" {
				p = path + "." + f.key
			}
			visit(f.typ, p)
		}
	}
	visit(reflect.TypeOf(file{}), "")
	return out, byType
}

// describe turns a field's doc comment into the reference's sentence:
// the Go names of the object's fields become their keys.
func describe(f field, o *object) string {
	return keyNames(f.doc, o)
}

// keyNames replaces the Go names of an object's fields in a comment with
// their keys.
func keyNames(d string, o *object) string {
	for _, g := range o.fields {
		d = regexp.MustCompile(`\b`+g.goName+`\b`).ReplaceAllString(d, "`"+g.key+"`")
	}
	return d
}

func typeText(rt reflect.Type, objs map[reflect.Type]*object) string {
	for rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	switch {
	case rt == durationType:
		return `duration ("30s", "2m" or seconds)`
	case rt == rawType:
		return "any (ignored)"
	}
	switch rt.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "number"
	case reflect.Slice:
		return "list of " + typeText(rt.Elem(), objs)
	case reflect.Map:
		return "map of name to " + typeText(rt.Elem(), objs)
	case reflect.Struct:
		n := objs[rt].name
		return "[" + n + "](#" + strings.ToLower(n) + ")"
	}
	return rt.String()
}

// reference renders docs/config.md.
func reference(t *testing.T) []byte {
	objs, byType := walk(t)
	var b bytes.Buffer
	fmt.Fprintf(&b, `# Configuration reference

<!-- Generated from the doc comments of cmd/agentadapter/internal/config by
%s
Do not edit: change the comments and regenerate. -->

The gateway reads the file your editor or desktop client already keeps
(`+"`mcpServers`"+`, or VS Code's `+"`servers`"+` and `+"`inputs`"+`), plus an optional
`+"`agentadapter`"+` section with the gateway's own settings, in that file or in a file
of its own that includes the client's (`+"`\"include\": \"mcp.json\"`"+`). JSON with
comments and trailing commas is accepted. Unknown keys are errors, with the
closest known key suggested; `+"`agentadapter config check FILE`"+` prints the
configuration in effect, secrets masked.

String values may use variables: `+"`${VAR}`"+` and `+"`${env:VAR}`"+` (the environment;
unset is an error), `+"`${VAR:-default}`"+`, `+"`${input:id}`"+` (a VS Code input, from
`+"`AGENTADAPTER_INPUT_<ID>`"+` or asked on a terminal), `+"`${workspaceFolder}`"+`,
`+"`${fileDirname}`"+`, `+"`${userHome}`"+`, and `+"`$$`"+` for a literal `+"`$`"+`.

Editors validate and complete the file with the JSON Schema
[agentadapter.schema.json](agentadapter.schema.json): write
`+"`\"$schema\": \"%s\"`"+` at the top of the file.

Paths below use `+"`.*`"+` for any name (a server's, a tool's) and `+"`[]`"+` for the items
of a list.
`, regenerate, schemaID)
	for _, o := range objs {
		fmt.Fprintf(&b, "\n## %s\n\n", o.name)
		paths := make([]string, len(o.paths))
		for i, p := range o.paths {
			if p == "" {
				p = "the top level"
			} else {
				p = "`" + p + "`"
			}
			paths[i] = p
		}
		fmt.Fprintf(&b, "At %s.", strings.Join(paths, ", "))
		if o.doc != "" {
			d := o.doc
			for _, n := range []string{o.name, strings.ToLower(o.name[:1]) + o.name[1:]} {
				d = strings.TrimPrefix(d, n+" ")
			}
			fmt.Fprintf(&b, " %s %s", o.name, mdEscape(keyNames(d, o)))
		}
		b.WriteString("\n\n| Key | Type | Description |\n|---|---|---|\n")
		for _, f := range o.fields {
			cell := strings.NewReplacer("|", `\|`).Replace(mdEscape(describe(f, o)))
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.key, typeText(f.typ, byType), cell)
		}
	}
	return b.Bytes()
}

// mdEscape keeps "<ID>" and "/mcp/<name>" from reading as HTML tags.
func mdEscape(s string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s)
}

// schema builds the JSON Schema of the file with jsonschema-go from the
// same types, descriptions from the same comments. Nothing is required:
// what a server must have depends on its kind, which Load checks.
func schema(t *testing.T) []byte {
	s, err := jsonschema.ForType(reflect.TypeOf(file{}), &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		durationType: {Types: []string{"string", "number"}, Description: `A duration: "30s", "2m", or a number of seconds.`},
		rawType:      {},
	}})
	if err != nil {
		t.Fatal(err)
	}
	_, byType := walk(t)
	var fill func(s *jsonschema.Schema, rt reflect.Type)
	fill = func(s *jsonschema.Schema, rt reflect.Type) {
		if s == nil {
			return
		}
		for rt.Kind() == reflect.Pointer {
			rt = rt.Elem()
		}
		switch rt.Kind() {
		case reflect.Slice:
			fill(s.Items, rt.Elem())
		case reflect.Map:
			fill(s.AdditionalProperties, rt.Elem())
		case reflect.Struct:
			if rt == durationType {
				return
			}
			s.Required = nil
			o := byType[rt]
			for _, f := range o.fields {
				p := s.Properties[f.key]
				if p == nil {
					t.Fatalf("schema has no property %s.%s", o.name, f.key)
				}
				if p.Description == "" {
					p.Description = strings.ReplaceAll(describe(f, o), "`", "")
				}
				if e, ok := enums[o.name+"."+f.key]; ok {
					for _, v := range e.values {
						p.Enum = append(p.Enum, v)
					}
				}
				fill(p, f.typ)
			}
		}
	}
	fill(s, reflect.TypeOf(file{}))
	s.Schema = "https://json-schema.org/draft/2020-12/schema"
	s.ID = schemaID
	s.Title = "agentadapter configuration"
	s.Description = "An MCP client's server list (mcpServers, or VS Code's servers and inputs) with the gateway's agentadapter section. Reference: docs/config.md."
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// Every key of the file has a doc comment; docs/config.md and the schema
// are what the types generate (run the command in the message when not).
func TestReference(t *testing.T) {
	objs, _ := walk(t)
	for _, o := range objs {
		for _, f := range o.fields {
			if f.doc == "" {
				t.Errorf("key %q (%s.%s, at %s) has no doc comment: document it in the config package's types, then run\n\t%s", f.key, o.name, f.goName, strings.Join(o.paths, ", "), regenerate)
			}
		}
	}
	for _, g := range []struct {
		name string
		data []byte
	}{{"config.md", reference(t)}, {"agentadapter.schema.json", schema(t)}} {
		p := filepath.Join(docsDir, g.name)
		if *update {
			if err := os.WriteFile(p, g.data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(old, g.data) {
			t.Errorf("docs/%s is stale (the config types or their comments changed): run\n\t%s", g.name, regenerate)
		}
	}
}

// The examples in the repository validate against the published schema
// (and load), and keys the loader refuses the schema refuses too.
func TestSchema(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(docsDir, "agentadapter.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	validate := func(name string, doc []byte) error {
		std, err := hujson.Standardize(doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var v any
		if err := json.Unmarshal(std, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return rs.Validate(v)
	}
	examples, err := filepath.Glob(filepath.Join("..", "..", "..", "..", "examples", "*", "*.json"))
	if err != nil || len(examples) == 0 {
		t.Fatalf("no example configs (%v)", err)
	}
	for _, p := range examples {
		doc, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(doc, []byte(`"mcpServers"`)) && !bytes.Contains(doc, []byte(`"agentadapter"`)) {
			continue // not a configuration
		}
		if err := validate(p, doc); err != nil {
			t.Errorf("%s does not validate: %v", p, err)
		}
	}
	for _, tt := range []struct{ name, doc, want string }{
		{"unknown server key", `{"mcpServers": {"a": {"comand": "x"}}}`, "comand"},
		{"unknown section key", `{"agentadapter": {"polcy": {}}}`, "polcy"},
		{"unknown rule key", `{"agentadapter": {"policy": {"approval": {"rules": [{"approve": "none", "argz": {}}]}}}}`, "argz"},
		{"wrong type", `{"mcpServers": {"a": {"command": "x", "args": "one"}}}`, "args"},
		{"bad duration", `{"agentadapter": {"policy": {"timeout": true}}}`, "timeout"},
	} {
		err := validate(tt.name, []byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: validation error %v, want one naming %q", tt.name, err, tt.want)
		}
	}
	// Enumerated values: each one Load takes, the schema takes; another
	// both refuse.
	for key, e := range enums {
		for _, v := range append(slices.Clone(e.values), "bogus") {
			doc := fmt.Sprintf(e.template, v)
			if strings.Count(e.template, "%") == 2 {
				endpoint := `"url": "https://mcp.example.com/mcp"`
				if v == "stdio" {
					endpoint = `"command": "sh"`
				}
				doc = fmt.Sprintf(e.template, v, endpoint)
			}
			p := filepath.Join(t.TempDir(), "c.json")
			if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
				t.Fatal(err)
			}
			_, lerr := Load(p, nil)
			verr := validate(key, []byte(doc))
			switch {
			case v == "bogus" && (lerr == nil || verr == nil):
				t.Errorf("%s %q: Load error %v, schema error %v; want both to refuse it", key, v, lerr, verr)
			case v != "bogus" && (lerr != nil || verr != nil):
				t.Errorf("%s %q: Load error %v, schema error %v; want both to take it", key, v, lerr, verr)
			}
		}
	}
	for _, doc := range []string{
		`{"$schema": "` + schemaID + `", "mcpServers": {"a": {"command": "x", "timeout": 30}}}`,
		`{"agentadapter": {"policy": {"timeout": "30s", "cache": {"t": 60}}}}`,
	} {
		if err := validate("valid", []byte(doc)); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}
