package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentadapter/agentadapter/adapter"
)

// check validates the agentadapter section against the servers and fills
// in defaults.
func (l *loader) check(cfg *Config) error {
	sort.Slice(cfg.Servers, func(i, j int) bool { return cfg.Servers[i].Name < cfg.Servers[j].Name })
	sec := cfg.Gateway
	at := func(path ...string) *Error {
		e := &Error{File: l.secFile, Line: 0}
		n := l.secNode
		for _, p := range path {
			if n == nil || n.kind != '{' {
				break
			}
			c, ok := n.obj[p]
			if !ok {
				break
			}
			n = c
		}
		if n != nil {
			e.Line, e.Path = n.line, n.path
		}
		return e
	}
	fail := func(e *Error, format string, args ...any) error {
		e.Msg = fmt.Sprintf(format, args...)
		return e
	}
	if sec.Listen == "" {
		sec.Listen = DefaultListen
	}
	if sec.Store == "" {
		sec.Store = DefaultStore()
	} else if err := checkStore(sec.Store); err != nil {
		return fail(at("store"), "%v", err)
	}
	if sec.Auth != nil {
		for i, t := range sec.Auth.Tokens {
			if t.Subject == "" || t.Token == "" {
				return fail(at("auth", "tokens"), "token %d needs a subject and a token", i)
			}
		}
		if p := sec.Auth.TokensFile; p != "" && !filepath.IsAbs(p) {
			sec.Auth.TokensFile = filepath.Join(filepath.Dir(cfg.File), p)
		}
		if j := sec.Auth.JWT; j != nil {
			if (j.Secret == "") == (j.PublicKeyFile == "") {
				return fail(at("auth", "jwt"), "jwt needs exactly one of secret and publicKeyFile")
			}
			if j.PublicKeyFile != "" && !filepath.IsAbs(j.PublicKeyFile) {
				j.PublicKeyFile = filepath.Join(filepath.Dir(cfg.File), j.PublicKeyFile)
			}
		}
	}
	if c := sec.Console; c != nil {
		if len(c.Operators) == 0 && !c.AnonymousLocal {
			return fail(at("console"), "the console needs operators (tokens of their own) or anonymousLocal: true")
		}
		for i, t := range c.Operators {
			if t.Subject == "" || t.Token == "" {
				return fail(at("console", "operators"), "operator %d needs a subject and a token", i)
			}
			if sec.Auth != nil {
				for _, ct := range sec.Auth.Tokens {
					if ct.Token == t.Token {
						return fail(at("console", "operators"), "operator %q has a client's token: a client could approve its own calls", t.Subject)
					}
				}
			}
		}
	}
	byName := map[string]*Server{}
	for _, s := range cfg.Servers {
		byName[s.Name] = s
		s.Policy = &ServerPolicy{}
	}
	for _, name := range sortedKeys(sec.Servers) {
		p := sec.Servers[name]
		s, ok := byName[name]
		if !ok {
			return fail(at("servers", name), "no server named %q is defined (known: %s)", name, strings.Join(sortedKeys(byName), ", "))
		}
		if p == nil {
			p = &ServerPolicy{}
		}
		switch p.Trust {
		case "", "untrusted", "trusted":
		default:
			return fail(at("servers", name, "trust"), "trust %q: use \"trusted\" or \"untrusted\"", p.Trust)
		}
		for remote, local := range p.Rename {
			if adapter.ValidateName(local) != nil {
				return fail(at("servers", name, "rename", remote), "new name %q: use 1 to 64 letters, digits, '_' or '-'", local)
			}
		}
		if p.CallTimeout == 0 {
			p.CallTimeout = s.CallTimeout
		}
		if o := p.OAuth; o != nil {
			if s.Kind != "http" {
				return fail(at("servers", name, "oauth"), "oauth is for http servers; %q is %s", name, s.Kind)
			}
			if o.ClientCredentials != nil && (o.ClientCredentials.ClientID == "" || o.ClientCredentials.ClientSecret == "") {
				return fail(at("servers", name, "oauth", "clientCredentials"), "clientCredentials needs a clientId and a clientSecret")
			}
			for _, u := range []string{o.ClientMetadataURL, o.RedirectURL} {
				if pu, err := url.Parse(u); u != "" && (err != nil || pu.Host == "") {
					return fail(at("servers", name, "oauth"), "bad url %q", u)
				}
			}
			if o.Tokens == "" {
				o.Tokens = filepath.Join(stateDir(), "tokens.json")
			} else if !filepath.IsAbs(o.Tokens) {
				o.Tokens = filepath.Join(filepath.Dir(cfg.File), o.Tokens)
			}
		}
		s.Policy = p
	}
	if err := checkPolicy(sec.Policy, byName, true, func(p ...string) *Error { return at(append([]string{"policy"}, p...)...) }); err != nil {
		return err
	}
	for _, name := range sortedKeys(sec.Virtual) {
		v := sec.Virtual[name]
		if !nameRE.MatchString(name) {
			return fail(at("virtualServers", name), "virtual server name %q: use 1 to 64 letters, digits, '_' or '-'", name)
		}
		if v == nil {
			return fail(at("virtualServers", name), "virtual server %q is null", name)
		}
		for _, s := range v.Servers {
			if _, ok := byName[s]; !ok {
				return fail(at("virtualServers", name, "servers"), "no server named %q is defined", s)
			}
		}
		for _, t := range v.Tools {
			if !globOK(t) {
				return fail(at("virtualServers", name, "tools"), "bad pattern %q", t)
			}
		}
		if err := checkPolicy(v.Policy, byName, false, func(p ...string) *Error {
			return at(append([]string{"virtualServers", name, "policy"}, p...)...)
		}); err != nil {
			return err
		}
	}
	return nil
}

func checkPolicy(p *Policy, servers map[string]*Server, top bool, at func(...string) *Error) error {
	if p == nil {
		return nil
	}
	fail := func(e *Error, format string, args ...any) error {
		e.Msg = fmt.Sprintf(format, args...)
		return e
	}
	if a := p.Approval; a != nil {
		switch a.Default {
		case "", "annotations", "always", "never":
		default:
			return fail(at("approval", "default"), "approval default %q: use annotations, always or never", a.Default)
		}
		if len(a.Standing) > 0 && !top {
			return fail(at("approval", "standing"), "standing decisions are allowed in the top-level policy only (they apply at every endpoint)")
		}
		for _, g := range a.Standing {
			if g == "" || !globOK(g) {
				return fail(at("approval", "standing"), "bad pattern %q", g)
			}
		}
		for i, r := range a.Rules {
			e := func() *Error { e := at("approval", "rules"); e.Path += fmt.Sprintf("[%d]", i); return e }
			switch r.Approve {
			case "required", "none":
			default:
				return fail(e(), "approve %q: use \"required\" or \"none\"", r.Approve)
			}
			switch r.Annotation {
			case "", "readOnly", "destructive", "idempotent", "openWorld":
			default:
				return fail(e(), "annotation %q: use readOnly, destructive, idempotent or openWorld", r.Annotation)
			}
			for _, g := range append([]string{r.Tool, r.Server}, values(r.Args)...) {
				if !globOK(g) {
					return fail(e(), "bad pattern %q", g)
				}
			}
			if r.Server != "" && !strings.ContainsAny(r.Server, "*?[") {
				if _, ok := servers[r.Server]; !ok {
					return fail(e(), "no server named %q is defined", r.Server)
				}
			}
		}
	}
	if l := p.Limits; l != nil {
		rates := map[string]*Rate{"perIdentity": l.PerIdentity}
		for t, r := range l.Tools {
			rates["tools."+t] = r
		}
		for _, k := range sortedKeys(rates) {
			r := rates[k]
			if r == nil {
				continue
			}
			if r.Calls <= 0 || r.Window <= 0 {
				return fail(at("limits"), "%s: a limit needs calls > 0 and a window (\"1m\")", k)
			}
		}
	}
	for t, d := range p.Cache {
		if d < 0 {
			return fail(at("cache", t), "negative time to live")
		}
	}
	return nil
}

func values(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// DefaultStore is sqlite in the user's state directory
// ($XDG_STATE_HOME/agentadapter, ~/.local/state/agentadapter).
func DefaultStore() string {
	return "sqlite:" + filepath.Join(stateDir(), "state.db")
}

// stateDir is $XDG_STATE_HOME/agentadapter, else ~/.local/state/agentadapter.
func stateDir() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "agentadapter")
}

func checkStore(s string) error {
	scheme, rest, ok := strings.Cut(s, ":")
	switch {
	case ok && scheme == "memory":
		return nil
	case ok && scheme == "sqlite" && rest != "":
		return nil
	case ok && (scheme == "postgres" || scheme == "postgresql"):
		return nil
	}
	return fmt.Errorf("store %q: use \"sqlite:PATH\", \"postgres://...\" or \"memory:\"", s)
}

// secretKeys mark env and header names whose values are masked.
var secretKeys = append([]string{"key", "auth", "pass", "pwd", "bearer", "session"}, adapter.DefaultSecretKeys()...)

func isSecretName(k string) bool {
	k = strings.ToLower(strings.ReplaceAll(k, "-", "_"))
	for _, s := range secretKeys {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// Masked returns the configuration as indented JSON with secrets masked:
// tokens, values of secret-looking env and header names, URL passwords and
// secret-looking query parameters.
func (c *Config) Masked() ([]byte, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var cp Config
	if err := json.Unmarshal(b, &cp); err != nil {
		return nil, err
	}
	for _, s := range cp.Servers {
		for k := range s.Env {
			if isSecretName(k) {
				s.Env[k] = adapter.Redacted
			}
		}
		for k := range s.Headers {
			if isSecretName(k) {
				s.Headers[k] = adapter.Redacted
			}
		}
		s.URL = maskURL(s.URL)
		for i, a := range s.Args {
			if strings.Contains(a, "://") {
				s.Args[i] = maskURL(a)
			}
		}
	}
	for _, p := range cp.Gateway.Servers {
		if p != nil && p.OAuth != nil {
			if p.OAuth.ClientSecret != "" {
				p.OAuth.ClientSecret = adapter.Redacted
			}
			if cc := p.OAuth.ClientCredentials; cc != nil {
				cc.ClientSecret = adapter.Redacted
			}
		}
	}
	for _, s := range cp.Servers {
		if s.Policy != nil && s.Policy.OAuth != nil {
			s.Policy.OAuth = cp.Gateway.Servers[s.Name].OAuth
		}
	}
	if c := cp.Gateway.Console; c != nil {
		for i := range c.Operators {
			c.Operators[i].Token = adapter.Redacted
		}
	}
	if a := cp.Gateway.Auth; a != nil {
		for i := range a.Tokens {
			a.Tokens[i].Token = adapter.Redacted
		}
		if a.JWT != nil && a.JWT.Secret != "" {
			a.JWT.Secret = adapter.Redacted
		}
	}
	cp.Gateway.Store = maskURL(cp.Gateway.Store)
	return json.MarshalIndent(&cp, "", "  ")
}

func maskURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	changed := false
	for k := range q {
		if isSecretName(k) {
			q.Set(k, "xxxxx")
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.String()
}
