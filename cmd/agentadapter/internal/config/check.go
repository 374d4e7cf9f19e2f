package config

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
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
	// Client tokens by value, to refuse an operator holding one.
	clients := map[string]string{}
	if sec.Auth != nil {
		for i, t := range sec.Auth.Tokens {
			if t.Subject == "" || t.Token == "" {
				return fail(at("auth", "tokens"), "token %d needs a subject and a token", i)
			}
			if err := checkStrength(t.Token); err != nil {
				return fail(at("auth", "tokens"), "token %d (subject %q): %v", i, t.Subject, err)
			}
			if reservedSubject(t.Subject) {
				return fail(at("auth", "tokens"), "token %d: subjects starting %q name anonymous sessions; choose another", i, anonymousPrefix)
			}
			if other, dup := clients[t.Token]; dup && other != t.Subject {
				return fail(at("auth", "tokens"), "token %d (subject %q) is also %q's: one token names one caller", i, t.Subject, other)
			}
			clients[t.Token] = t.Subject
		}
		if p := sec.Auth.TokensFile; p != "" {
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(cfg.File), p)
				sec.Auth.TokensFile = p
			}
			toks, err := ReadTokensFile(p)
			if err != nil {
				return fail(at("auth", "tokensFile"), "%v", err)
			}
			for _, t := range toks {
				if other, dup := clients[t.Token]; dup && other != t.Subject {
					return fail(at("auth", "tokensFile"), "%s: the token of %q is also %q's: one token names one caller", p, t.Subject, other)
				}
				clients[t.Token] = t.Subject
			}
		}
		if j := sec.Auth.JWT; j != nil {
			if (j.Secret == "") == (j.PublicKeyFile == "") {
				return fail(at("auth", "jwt"), "jwt needs exactly one of secret and publicKeyFile")
			}
			if j.Secret != "" {
				if err := checkStrength(j.Secret); err != nil {
					return fail(at("auth", "jwt", "secret"), "secret: %v", err)
				}
			}
			if j.PublicKeyFile != "" && !filepath.IsAbs(j.PublicKeyFile) {
				j.PublicKeyFile = filepath.Join(filepath.Dir(cfg.File), j.PublicKeyFile)
			}
			if j.PublicKeyFile != "" {
				if err := checkPrivate(j.PublicKeyFile, false); err != nil {
					return fail(at("auth", "jwt", "publicKeyFile"), "%v", err)
				}
			}
			if j.Issuer == "" && j.Audience == "" && !j.AnyAudience {
				return fail(at("auth", "jwt"), "jwt sets neither audience nor issuer: a token minted for another service would be accepted; set audience (and issuer), or anyAudience: true to accept that")
			}
		}
	}
	if c := sec.Console; c != nil {
		if len(c.Operators) == 0 && !c.AnonymousLocal {
			return fail(at("console"), "the console needs operators (tokens of their own) or anonymousLocal: true")
		}
		operators := map[string]string{}
		for i, t := range c.Operators {
			if t.Subject == "" || t.Token == "" {
				return fail(at("console", "operators"), "operator %d needs a subject and a token", i)
			}
			if err := checkStrength(t.Token); err != nil {
				return fail(at("console", "operators"), "operator %d (subject %q): %v", i, t.Subject, err)
			}
			if _, ok := clients[t.Token]; ok {
				return fail(at("console", "operators"), "operator %q has a client's token: a client could approve its own calls", t.Subject)
			}
			if other, dup := operators[t.Token]; dup && other != t.Subject {
				return fail(at("console", "operators"), "operator %d (subject %q) has %q's token: each operator signs in with a token of their own", i, t.Subject, other)
			}
			operators[t.Token] = t.Subject
		}
	}
	if si := sec.SignIn; si != nil {
		if err := checkSignInURL(si.BaseURL); err != nil {
			return fail(at("signIn", "baseUrl"), "%v", err)
		}
	}
	for _, h := range sec.AllowedHosts {
		if h == "" || strings.ContainsAny(h, "/ []@") || (strings.Contains(h, ":") && !isIP(h)) {
			return fail(at("allowedHosts"), "%q is not a host name (write it without scheme, port or path)", h)
		}
	}
	for _, p := range sec.TrustedProxies {
		if _, err := ProxyPrefix(p); err != nil {
			return fail(at("trustedProxies"), "%v", err)
		}
	}
	if n := sec.IdleConnsPerHost; n < 0 || n > 10000 {
		return fail(at("idleConnsPerHost"), "%d is not a number of connections from 0 (the default, 64) to 10000", n)
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
			if o.PerCaller && (sec.Auth == nil || len(sec.Auth.Tokens) == 0 && sec.Auth.TokensFile == "" && sec.Auth.JWT == nil) {
				return fail(at("servers", name, "oauth", "perCaller"), "perCaller needs agentadapter.auth: each caller is reached upstream as the user inbound auth verified")
			}
			if o.PerCaller && o.ClientCredentials != nil && o.TokenExchange == nil {
				return fail(at("servers", name, "oauth", "perCaller"), "perCaller is for users' own tokens: clientCredentials is the shared identity, allowed only alongside tokenExchange")
			}
			if x := o.TokenExchange; x != nil {
				xat := func(p ...string) *Error {
					return at(append([]string{"servers", name, "oauth", "tokenExchange"}, p...)...)
				}
				switch {
				case !o.PerCaller:
					return fail(xat(), "tokenExchange needs perCaller: true")
				case sec.Auth == nil || sec.Auth.JWT == nil:
					return fail(xat(), "tokenExchange needs agentadapter.auth.jwt: only a verified inbound JWT is exchanged")
				case x.ClientSecret != "" && x.ClientID == "":
					return fail(xat("clientSecret"), "a clientSecret needs a clientId")
				case x.AuthMethod != "" && x.AuthMethod != "client_secret_basic" && x.AuthMethod != "client_secret_post":
					return fail(xat("authMethod"), "authMethod %q: use client_secret_basic or client_secret_post", x.AuthMethod)
				case x.SubjectTokenType != "" && x.SubjectTokenType != "access_token" && x.SubjectTokenType != "jwt" &&
					x.SubjectTokenType != "urn:ietf:params:oauth:token-type:access_token" && x.SubjectTokenType != "urn:ietf:params:oauth:token-type:jwt":
					return fail(xat("subjectTokenType"), "subjectTokenType %q: use access_token or jwt", x.SubjectTokenType)
				case x.Skew < 0:
					return fail(xat("skew"), "skew is negative")
				}
				for field, u := range map[string]string{"tokenUrl": x.TokenURL, "resource": x.Resource} {
					if pu, err := url.Parse(u); u != "" && (err != nil || pu.Host == "" || pu.Scheme != "https" && pu.Scheme != "http") {
						return fail(xat(field), "bad url %q", MaskURL(u))
					}
				}
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
			if err := checkPrivate(o.Tokens, true); err != nil {
				return fail(at("servers", name, "oauth", "tokens"), "%v", err)
			}
		}
		s.Policy = p
	}
	if err := checkPolicy(sec.Policy, byName, true, func(p ...string) *Error { return at(append([]string{"policy"}, p...)...) }); err != nil {
		return err
	}
	if !approverOK(sec.Approver) {
		return fail(at("approver"), "approver %q: want \"operator\" or \"client\"", sec.Approver)
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
		if len(v.AlwaysLoaded) > 0 && !v.Search {
			return fail(at("virtualServers", name, "alwaysLoaded"), "alwaysLoaded needs \"search\": true (without search every selected tool is listed)")
		}
		for _, t := range v.AlwaysLoaded {
			if !globOK(t) {
				return fail(at("virtualServers", name, "alwaysLoaded"), "bad pattern %q", t)
			}
		}
		if !approverOK(v.Approver) {
			return fail(at("virtualServers", name, "approver"), "approver %q: want \"operator\" or \"client\"", v.Approver)
		}
		if err := checkPolicy(v.Policy, byName, false, func(p ...string) *Error {
			return at(append([]string{"virtualServers", name, "policy"}, p...)...)
		}); err != nil {
			return err
		}
	}
	return nil
}

// approverOK reports whether a is an approver the gateway knows ("" is
// the default, "operator").
func approverOK(a string) bool {
	return a == "" || a == "operator" || a == "client"
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

// Masked returns the configuration as indented JSON with secrets masked,
// by name and by structure (see MaskValue, MaskArgs, MaskURL): tokens and
// client secrets, values of secret-looking env vars, headers and flags,
// URL credentials and secret query parameters, DSN passwords.
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
		for k, v := range s.Env {
			s.Env[k] = MaskValue(k, v)
		}
		for k, v := range s.Headers {
			s.Headers[k] = MaskValue(k, v)
		}
		s.URL = MaskURL(s.URL)
		s.Command = MaskText(s.Command)
		s.Args = MaskArgs(s.Args)
	}
	for _, p := range cp.Gateway.Servers {
		if p != nil && p.OAuth != nil {
			if p.OAuth.ClientSecret != "" {
				p.OAuth.ClientSecret = ledger.Redacted
			}
			if cc := p.OAuth.ClientCredentials; cc != nil {
				cc.ClientSecret = ledger.Redacted
			}
			if x := p.OAuth.TokenExchange; x != nil {
				if x.ClientSecret != "" {
					x.ClientSecret = ledger.Redacted
				}
				x.TokenURL = MaskURL(x.TokenURL)
			}
			p.OAuth.ClientMetadataURL = MaskURL(p.OAuth.ClientMetadataURL)
			p.OAuth.RedirectURL = MaskURL(p.OAuth.RedirectURL)
		}
	}
	for _, s := range cp.Servers {
		if s.Policy != nil && s.Policy.OAuth != nil {
			s.Policy.OAuth = cp.Gateway.Servers[s.Name].OAuth
		}
	}
	if c := cp.Gateway.Console; c != nil {
		for i := range c.Operators {
			c.Operators[i].Token = ledger.Redacted
		}
	}
	if a := cp.Gateway.Auth; a != nil {
		for i := range a.Tokens {
			a.Tokens[i].Token = ledger.Redacted
		}
		if a.JWT != nil && a.JWT.Secret != "" {
			a.JWT.Secret = ledger.Redacted
		}
	}
	cp.Gateway.Store = MaskStore(cp.Gateway.Store)
	return json.MarshalIndent(&cp, "", "  ")
}

// ProxyPrefix parses a trustedProxies entry: an address ("10.0.0.5",
// "::1") or a network ("10.0.0.0/8").
func ProxyPrefix(p string) (netip.Prefix, error) {
	if strings.Contains(p, "/") {
		pfx, err := netip.ParsePrefix(p)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("%q is not an address or network (10.0.0.5, 10.0.0.0/8)", p)
		}
		return pfx.Masked(), nil
	}
	a, err := netip.ParseAddr(p)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is not an address or network (10.0.0.5, 10.0.0.0/8)", p)
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
}

func isIP(s string) bool {
	_, err := netip.ParseAddr(s)
	return err == nil
}

// anonymousPrefix is export.AnonymousPrefix: without auth each MCP
// session is the caller anonymous:<session id>, so a token with such a
// subject could take over that session's tickets once auth is switched on.
const anonymousPrefix = "anonymous:"

func reservedSubject(s string) bool { return strings.HasPrefix(s, anonymousPrefix) }

// checkSignInURL accepts the gateway's public base URL for sign-ins: https,
// or http on a loopback address, with no query or fragment.
func checkSignInURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("%q is not a base URL (https://host[:port][/path])", raw)
	}
	switch h := u.Hostname(); {
	case u.Scheme == "https":
	case u.Scheme == "http" && (h == "localhost" || h == "127.0.0.1" || h == "::1"):
	default:
		return fmt.Errorf("%q: the sign-in pages need https (http only on a loopback address)", raw)
	}
	return nil
}
