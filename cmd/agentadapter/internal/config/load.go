package config

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
)

// DefaultListen is the address serve listens on when the config names none.
const DefaultListen = "127.0.0.1:8931"

// Config is the effective configuration: every server resolved (variables
// expanded, paths absolute, env files read) and the gateway's section.
type Config struct {
	// File is the absolute path of the file loaded.
	File string `json:"file"`
	// Servers are ordered by name; disabled ones are kept, marked.
	Servers []*Server `json:"servers"`
	// Gateway is the agentadapter section (never nil).
	Gateway *Section `json:"agentadapter"`
}

// Server is one upstream MCP server.
type Server struct {
	Name string `json:"name"`
	// Kind is "stdio", "http" (streamable HTTP) or "sse".
	Kind     string            `json:"kind"`
	Command  string            `json:"command,omitempty"`
	Args     []string          `json:"args,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	Dir      string            `json:"cwd,omitempty"`
	URL      string            `json:"url,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
	// CallTimeout comes from the client entry (Cline's "timeout") unless
	// the gateway's section sets one.
	CallTimeout Duration `json:"callTimeout,omitempty"`
	// Policy is the gateway's settings for this server (never nil).
	Policy *ServerPolicy `json:"policy"`
	// Origin is "file:line" where the server is defined.
	Origin string `json:"origin"`
	// File is the absolute path of the file that defines the server (the
	// gateway's own file or one it includes, e.g. a client's mcp.json).
	File string `json:"-"`
	// PolicyFile is the absolute path of the file whose "agentadapter"
	// section set Policy; empty when no section names the server. Launch
	// trust is honoured only from the gateway's own file (Config.File).
	PolicyFile string `json:"-"`
}

// Options configure Load.
type Options struct {
	// Getenv reads environment variables; nil means os.Getenv (and
	// os.LookupEnv to tell unset from empty).
	LookupEnv func(string) (string, bool)
	// Prompt asks the user for an input variable that the environment
	// does not give (AGENTADAPTER_INPUT_<ID>); nil means such inputs are
	// an error.
	Prompt func(in *Input) (string, error)
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// InputEnv is the environment variable that gives ${input:id}.
func InputEnv(id string) string {
	var b strings.Builder
	b.WriteString("AGENTADAPTER_INPUT_")
	for _, r := range strings.ToUpper(id) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// Load reads, checks and resolves a configuration file.
func Load(filename string, opts *Options) (*Config, error) {
	if opts == nil {
		opts = &Options{}
	}
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	abs, err := filepath.Abs(filename)
	if err != nil {
		return nil, &Error{File: filename, Msg: err.Error()}
	}
	l := &loader{lookup: lookup, prompt: opts.Prompt, inputs: map[string]string{}, seen: map[string]*Server{}}
	cfg := &Config{File: abs}
	sec, err := l.loadFile(abs, cfg, 0)
	if err != nil {
		return nil, err
	}
	if sec == nil {
		sec = &Section{}
	}
	cfg.Gateway = sec
	if err := l.check(cfg); err != nil {
		return nil, err
	}
	for _, s := range cfg.Servers {
		if _, ok := sec.Servers[s.Name]; ok {
			s.PolicyFile = l.secAbs
		}
	}
	return cfg, nil
}

type loader struct {
	lookup    func(string) (string, bool)
	prompt    func(*Input) (string, error)
	inputs    map[string]string // resolved ${input:id}
	inputDefs map[string]*Input
	seen      map[string]*Server
	secNode   *node
	secFile   string
	secAbs    string // the absolute path of secFile
	secLines  map[string]int
}

func (l *loader) loadFile(abs string, cfg *Config, depth int) (*Section, error) {
	rel := displayName(abs)
	if depth > 4 {
		return nil, &Error{File: rel, Msg: "includes nest too deep"}
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, &Error{File: rel, Msg: fmt.Sprintf("cannot read: %v", errors.Unwrap(err))}
	}
	root, err := parse(rel, data)
	if err != nil {
		return nil, err
	}
	if err := checkKeys(rel, root, reflect.TypeOf(file{})); err != nil {
		return nil, err
	}
	// Inputs first: ${input:id} elsewhere refers to them.
	if in, ok := root.obj["inputs"]; ok {
		var defs []*Input
		if err := decode(rel, in, &defs); err != nil {
			return nil, err
		}
		if l.inputDefs == nil {
			l.inputDefs = map[string]*Input{}
		}
		for i, d := range defs {
			if d.ID == "" {
				return nil, &Error{File: rel, Line: in.arr[i].line, Path: in.arr[i].path, Msg: "input without an id"}
			}
			l.inputDefs[d.ID] = d
		}
	}
	dir := filepath.Dir(abs)
	ws := dir
	if filepath.Base(dir) == ".vscode" {
		ws = filepath.Dir(dir)
	}
	if err := l.expand(rel, root, ws, dir); err != nil {
		return nil, err
	}
	var f file
	if err := decode(rel, root, &f); err != nil {
		return nil, err
	}
	sec := f.Agentadapter
	if sec != nil && sec.Include != "" {
		inc := sec.Include
		if !filepath.IsAbs(inc) {
			inc = filepath.Join(dir, inc)
		}
		incSec, err := l.loadFile(inc, cfg, depth+1)
		if err != nil {
			return nil, err
		}
		if incSec != nil {
			n := root.obj["agentadapter"].obj["include"]
			return nil, &Error{File: rel, Line: n.line, Path: n.path, Msg: fmt.Sprintf("the included file %s has an agentadapter section of its own; keep one", displayName(inc))}
		}
	}
	for _, group := range []string{"mcpServers", "servers"} {
		g, ok := root.obj[group]
		if !ok {
			continue
		}
		entries := f.MCPServers
		if group == "servers" {
			entries = f.Servers
		}
		for _, name := range g.keys {
			n := g.obj[name]
			s, err := resolve(rel, dir, name, n, entries[name])
			if err != nil {
				return nil, err
			}
			if prev, dup := l.seen[name]; dup {
				return nil, &Error{File: rel, Line: n.line, Path: n.path, Msg: fmt.Sprintf("duplicate server %q (also defined at %s)", name, prev.Origin)}
			}
			s.File = abs
			l.seen[name] = s
			cfg.Servers = append(cfg.Servers, s)
		}
	}
	if sec != nil {
		l.secNode, l.secFile, l.secAbs = root.obj["agentadapter"], rel, abs
	}
	return sec, nil
}

// resolve turns one client entry into a Server, checking what it must have.
func resolve(file, dir, name string, n *node, e *serverEntry) (*Server, error) {
	fail := func(path, format string, args ...any) error {
		line := n.line
		if c, ok := n.obj[path]; ok && path != "" {
			line = c.line
			path = c.path
		} else {
			path = n.path
		}
		return &Error{File: file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)}
	}
	if !nameRE.MatchString(name) {
		return nil, fail("", "server name %q: use 1 to 64 letters, digits, '_' or '-'", name)
	}
	if e == nil {
		return nil, fail("", "server %q is null", name)
	}
	s := &Server{Name: name, Command: e.Command, Args: e.Args, URL: e.URL, Headers: e.Headers, Disabled: e.Disabled,
		CallTimeout: e.Timeout, Origin: fmt.Sprintf("%s:%d", file, n.line)}
	kind := e.Type
	if kind == "" {
		kind = e.TransportType
	}
	switch kind {
	case "":
		switch {
		case e.Command != "":
			kind = "stdio"
		case e.URL != "":
			kind = "http"
		default:
			return nil, fail("", "server %q has neither a command (stdio) nor a url (http, sse)", name)
		}
	case "stdio":
	case "http", "streamable-http", "streamableHttp", "streamable_http":
		kind = "http"
	case "sse":
	default:
		return nil, fail("type", "unknown server type %q: use stdio, http or sse", kind)
	}
	s.Kind = kind
	switch kind {
	case "stdio":
		if e.Command == "" {
			return nil, fail("", "stdio server %q is missing its command", name)
		}
		if e.URL != "" {
			return nil, fail("url", "stdio server %q also has a url: keep one", name)
		}
	default:
		if e.URL == "" {
			return nil, fail("", "%s server %q is missing its url", kind, name)
		}
		if e.Command != "" {
			return nil, fail("command", "server %q has both a command and a url: keep one", name)
		}
		u, err := url.Parse(e.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fail("url", "bad url %q: want http:// or https:// with a host", e.URL)
		}
	}
	if e.Cwd != "" {
		s.Dir = e.Cwd
		if !filepath.IsAbs(s.Dir) {
			s.Dir = filepath.Join(dir, s.Dir)
		}
	}
	if e.EnvFile != "" || len(e.Env) > 0 {
		s.Env = map[string]string{}
	}
	if e.EnvFile != "" {
		p := e.EnvFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		vars, err := readEnvFile(p)
		if err != nil {
			return nil, fail("envFile", "%v", err)
		}
		for k, v := range vars {
			s.Env[k] = v
		}
	}
	for k, v := range e.Env {
		s.Env[k] = v
	}
	return s, nil
}

// readEnvFile reads KEY=VALUE lines (# comments, optional "export ",
// optional quotes), as VS Code's envFile does.
func readEnvFile(p string) (map[string]string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("cannot read env file %s: %v", displayName(p), errors.Unwrap(err))
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for i := 1; sc.Scan(); i++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("env file %s:%d: want KEY=VALUE", displayName(p), i)
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		out[k] = v
	}
	return out, sc.Err()
}

// decode unmarshals a node, turning type errors into lines.
func decode(file string, n *node, v any) error {
	b, err := json.Marshal(n.plain())
	if err != nil {
		return &Error{File: file, Line: n.line, Path: n.path, Msg: err.Error()}
	}
	if err := json.Unmarshal(b, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			at := findBad(n, reflect.TypeOf(v).Elem())
			if at == nil {
				at = n
			}
			return &Error{File: file, Line: at.line, Path: at.path, Msg: fmt.Sprintf("want %s, got %s", typeName(te.Type), te.Value)}
		}
		// Errors of our own UnmarshalJSON (Duration) carry no field:
		// find the value that fails by decoding piecewise.
		if at := findBad(n, reflect.TypeOf(v).Elem()); at != nil {
			return &Error{File: file, Line: at.line, Path: at.path, Msg: err.Error()}
		}
		return &Error{File: file, Line: n.line, Path: n.path, Msg: err.Error()}
	}
	return nil
}

// findBad returns the deepest node that fails to decode into t.
func findBad(n *node, t reflect.Type) *node {
	b, _ := json.Marshal(n.plain())
	if json.Unmarshal(b, reflect.New(t).Interface()) == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.kind == '{' && t.Kind() == reflect.Struct:
		for _, k := range n.keys {
			if f, ok := fieldByTag(t, k); ok {
				if bad := findBad(n.obj[k], f.Type); bad != nil {
					return bad
				}
			}
		}
	case n.kind == '{' && t.Kind() == reflect.Map:
		for _, k := range n.keys {
			if bad := findBad(n.obj[k], t.Elem()); bad != nil {
				return bad
			}
		}
	case n.kind == '[' && t.Kind() == reflect.Slice:
		for _, c := range n.arr {
			if bad := findBad(c, t.Elem()); bad != nil {
				return bad
			}
		}
	}
	return n
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "a list"
	case reflect.Map, reflect.Struct, reflect.Pointer:
		return "an object"
	}
	return t.String()
}

var rawType = reflect.TypeOf(json.RawMessage{})

// checkKeys reports the first key the schema does not know, with a
// suggestion when one is close.
func checkKeys(file string, n *node, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawType {
		return nil
	}
	switch {
	case n.kind == '{' && t.Kind() == reflect.Struct:
		for _, k := range n.keys {
			f, ok := fieldByTag(t, k)
			if !ok {
				msg := fmt.Sprintf("unknown key %q", k)
				if s := suggest(k, tagNames(t)); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
				return &Error{File: file, Line: n.obj[k].line, Path: n.obj[k].path, Msg: msg}
			}
			if err := checkKeys(file, n.obj[k], f.Type); err != nil {
				return err
			}
		}
	case n.kind == '{' && t.Kind() == reflect.Map:
		for _, k := range n.keys {
			if err := checkKeys(file, n.obj[k], t.Elem()); err != nil {
				return err
			}
		}
	case n.kind == '[' && t.Kind() == reflect.Slice:
		for _, c := range n.arr {
			if err := checkKeys(file, c, t.Elem()); err != nil {
				return err
			}
		}
	}
	return nil
}

func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func tagNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// suggest returns the candidate closest to k (case-insensitively within
// two edits), or "".
func suggest(k string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(k), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// displayName shows a path relative to the working directory when it is
// under it.
func displayName(abs string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, abs); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return abs
}

// globOK reports whether a glob pattern is well formed.
func globOK(p string) bool {
	_, err := path.Match(p, "")
	return err == nil
}
