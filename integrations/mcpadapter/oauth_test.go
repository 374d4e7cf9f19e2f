package mcpadapter_test

import (
	"bytes"
	"cmp"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
	"github.com/agentadapter/agentadapter/registry"
)

// authServer is a small in-process OAuth authorization server and the MCP
// server it protects, enough to drive the client through every branch:
// metadata, dynamic registration, authorization code with PKCE, refresh,
// client credentials (secret or signed assertion), revocation, and a tool
// that needs a scope the first grant lacks (step-up).
type authServer struct {
	t   *testing.T
	srv *httptest.Server
	url string // origin; the MCP endpoint is url+"/mcp"
	key *ecdsa.PublicKey
	// workload verifies the workload JWTs of JWT-bearer grants (RFC 7523
	// §2.1, workload identity federation); nil refuses the grant.
	workload  *ecdsa.PublicKey
	jwtBearer int // JWT-bearer grant requests, refused ones too

	mu        sync.Mutex
	codes     map[string]codeGrant
	access    map[string]grant // live access tokens
	refresh   map[string]grant // live refresh tokens
	issued    []string         // every token ever issued
	authorize int              // authorization requests
	refreshes int
	ccGrants  int
	lastScope string
	presented []string // tokens presented to the MCP endpoint

	// issSupported advertises authorization_response_iss_parameter_supported
	// (RFC 9207); metaIssuer, if set, is the issuer the metadata names
	// instead of the server's own URL. Set before the first request.
	issSupported bool
	metaIssuer   string
}

type codeGrant struct {
	challenge, scope, resource string
}

type grant struct {
	scope    string
	resource string
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{t: t, codes: map[string]codeGrant{}, access: map[string]grant{}, refresh: map[string]grant{}}
	mux := http.NewServeMux()
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	a.url = a.srv.URL
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{Resource: a.url + "/mcp",
			AuthorizationServers: []string{a.url}, ScopesSupported: []string{"read"}}).ServeHTTP(w, r)
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": cmp.Or(a.metaIssuer, a.url), "authorization_response_iss_parameter_supported": a.issSupported,
			"authorization_endpoint": a.url + "/authorize", "token_endpoint": a.url + "/token",
			"registration_endpoint": a.url + "/register", "response_types_supported": []string{"code"},
			"scopes_supported":                      []string{"read", "admin", "offline_access"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "private_key_jwt", "none"},
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"client_id": "dyn-client", "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		a.authorize++
		a.lastScope = q.Get("scope")
		code := rand.Text()
		a.codes[code] = codeGrant{challenge: q.Get("code_challenge"), scope: q.Get("scope"), resource: q.Get("resource")}
		a.mu.Unlock()
		if q.Get("code_challenge_method") != "S256" {
			t.Errorf("authorization without PKCE S256: %v", q)
		}
		u, _ := url.Parse(q.Get("redirect_uri"))
		v := u.Query()
		v.Set("code", code)
		v.Set("state", q.Get("state"))
		u.RawQuery = v.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", a.token)
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return protectedServer() }, nil)
	verify := auth.RequireBearerToken(func(ctx context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.presented = append(a.presented, tok)
		g, ok := a.access[tok]
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		if g.resource != a.url+"/mcp" {
			return nil, fmt.Errorf("%w: token for resource %q", auth.ErrInvalidToken, g.resource)
		}
		return &auth.TokenInfo{Scopes: strings.Fields(g.scope), Expiration: time.Now().Add(time.Hour)}, nil
	}, &auth.RequireBearerTokenOptions{ResourceMetadataURL: a.url + "/.well-known/oauth-protected-resource/mcp", Scopes: []string{"read"}})
	mux.Handle("/mcp", verify(stepUp(a, handler)))
	return a
}

// stepUp refuses tools/call of "admin_tool" without the admin scope, and
// of "forbidden_tool" always, with 403 insufficient_scope.
func stepUp(a *authServer, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		json.Unmarshal(body, &msg)
		info := auth.TokenInfoFromContext(r.Context())
		need := ""
		switch {
		case msg.Method == "tools/call" && msg.Params.Name == "admin_tool" && !slices.Contains(info.Scopes, "admin"):
			need = "read admin"
		case msg.Method == "tools/call" && msg.Params.Name == "forbidden_tool":
			need = "read root"
		}
		if need != "" {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, need, a.url+"/.well-known/oauth-protected-resource/mcp"))
			http.Error(w, "insufficient scope", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func protectedServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "v1"}, nil)
	for _, name := range []string{"read_tool", "admin_tool", "forbidden_tool"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " done"}}}, nil
			})
	}
	return s
}

func (a *authServer) issue(g grant, withRefresh bool) map[string]any {
	at, rt := "at-"+rand.Text(), "rt-"+rand.Text()
	a.access[at] = g
	a.issued = append(a.issued, at)
	out := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600, "scope": g.scope}
	if withRefresh {
		a.refresh[rt] = g
		a.issued = append(a.issued, rt)
		out["refresh_token"] = rt
	}
	return out
}

func (a *authServer) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	a.mu.Lock()
	defer a.mu.Unlock()
	fail := func(code string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": code})
	}
	var out map[string]any
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		c, ok := a.codes[r.Form.Get("code")]
		delete(a.codes, r.Form.Get("code"))
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			fail("invalid_grant")
			return
		}
		if r.Form.Get("resource") != a.url+"/mcp" {
			a.t.Errorf("code exchange without the resource indicator: %v", r.Form)
		}
		out = a.issue(grant{scope: c.scope, resource: c.resource}, strings.Contains(c.scope, "offline_access"))
	case "refresh_token":
		g, ok := a.refresh[r.Form.Get("refresh_token")]
		if !ok {
			fail("invalid_grant")
			return
		}
		delete(a.refresh, r.Form.Get("refresh_token")) // rotation
		a.refreshes++
		out = a.issue(g, true)
	case "client_credentials":
		if id, secret, ok := r.BasicAuth(); ok {
			if id != "m2m" || secret != "m2m-secret" {
				fail("invalid_client")
				return
			}
		} else if !a.validAssertion(r.Form.Get("client_assertion")) {
			fail("invalid_client")
			return
		}
		a.ccGrants++
		out = a.issue(grant{scope: r.Form.Get("scope"), resource: r.Form.Get("resource")}, false)
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		a.jwtBearer++
		if a.workload == nil {
			fail("unsupported_grant_type")
			return
		}
		if _, err := jwt.Parse(r.Form.Get("assertion"), func(*jwt.Token) (any, error) { return a.workload, nil },
			jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(a.url), jwt.WithExpirationRequired()); err != nil {
			fail("invalid_grant")
			return
		}
		a.ccGrants++
		out = a.issue(grant{scope: r.Form.Get("scope"), resource: r.Form.Get("resource")}, false)
	default:
		fail("unsupported_grant_type")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

func (a *authServer) validAssertion(s string) bool {
	if a.key == nil {
		return false
	}
	tok, err := jwt.Parse(s, func(*jwt.Token) (any, error) { return a.key, nil },
		jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(a.url), jwt.WithIssuer("m2m"), jwt.WithSubject("m2m"))
	return err == nil && tok.Valid
}

// revoke forgets every access token, and every refresh token too if all.
func (a *authServer) revoke(all bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.access = map[string]grant{}
	if all {
		a.refresh = map[string]grant{}
	}
}

func (a *authServer) counts() (authorize, refreshes, cc int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.authorize, a.refreshes, a.ccGrants
}

// headless follows the authorization server's immediate redirect, as a
// browser would after the user approved.
func headless(ctx context.Context, req *mcpadapter.AuthorizationRequest) (*auth.AuthorizationResult, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, _ := http.NewRequestWithContext(ctx, http.MethodGet, req.URL, nil)
	resp, err := c.Do(r)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(loc.String(), req.RedirectURL) {
		return nil, fmt.Errorf("redirected to %s, not %s", loc, req.RedirectURL)
	}
	return &auth.AuthorizationResult{Code: loc.Query().Get("code"), State: loc.Query().Get("state")}, nil
}

// oauthEnv is a manager importing from the protected server, logging at
// debug level and recording a JSONL ledger, both into buffers.
type oauthEnv struct {
	reg  *registry.Registry
	m    *mcpadapter.Manager
	exec *adapter.Executor
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newOAuthEnv(t *testing.T, a *authServer, o *mcpadapter.OAuth, logs, ledger io.Writer) (*oauthEnv, error) {
	reg := registry.New()
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: adapter.NewJSONLLedger(ledger), Logger: logger})
	m := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Logger: logger, Executor: exec, Strict: true})
	t.Cleanup(func() {
		m.Close()
		exec.Close()
	})
	err := m.Connect(context.Background(), mcpadapter.Upstream{Name: "protected", URL: a.url + "/mcp", OAuth: o, Trust: true})
	return &oauthEnv{reg: reg, m: m, exec: exec}, err
}

func (e *oauthEnv) call(t *testing.T, tool string) error {
	t.Helper()
	res, err := e.exec.Call(context.Background(), tool, json.RawMessage(`{}`))
	if err == nil && res.Text() != tool+" done" {
		t.Errorf("%s answered %q", tool, res.Text())
	}
	return err
}

func TestOAuthEndToEnd(t *testing.T) {
	a := newAuthServer(t)
	path := filepath.Join(t.TempDir(), "tokens.json")
	store := mcpadapter.NewFileTokenStore(path)
	var logs, ledger syncBuffer
	o := &mcpadapter.OAuth{Authorize: headless, Tokens: store, ClientName: "test"}
	e, err := newOAuthEnv(t, a, o, &logs, &ledger)
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := a.counts(); n != 1 {
		t.Fatalf("%d authorizations to connect, want 1", n)
	}
	if got := strings.Fields(a.lastScope); len(got) != 2 || !slices.Contains(got, "read") || !slices.Contains(got, "offline_access") {
		t.Errorf("first authorization asked for scope %q, want the challenged scope and offline_access", a.lastScope)
	}
	if err := e.call(t, "read_tool"); err != nil {
		t.Fatal(err)
	}

	// The server revokes the access token: the client refreshes, without
	// the user.
	a.revoke(false)
	if err := e.call(t, "read_tool"); err != nil {
		t.Fatalf("after revoking the access token: %v", err)
	}
	if n, r, _ := a.counts(); n != 1 || r != 1 {
		t.Errorf("after revocation: %d authorizations, %d refreshes; want 1 and 1", n, r)
	}

	// A tool needs a scope the grant lacks: step up.
	if err := e.call(t, "admin_tool"); err != nil {
		t.Fatalf("step-up: %v", err)
	}
	if n, _, _ := a.counts(); n != 2 || !strings.Contains(a.lastScope, "admin") || !strings.Contains(a.lastScope, "read") {
		t.Errorf("step-up: %d authorizations, last scope %q; want 2 and read+admin", n, a.lastScope)
	}

	// A server that keeps refusing ends in an error, not a loop.
	if err := e.call(t, "forbidden_tool"); err == nil {
		t.Error("a tool refused with 403 on every try succeeded")
	}
	if n, _, _ := a.counts(); n > 4 {
		t.Errorf("%d authorizations after a refused step-up: the retry is not bounded", n)
	}
	before, _, _ := a.counts()

	// Both tokens revoked: the refresh fails and the user signs in again.
	a.revoke(true)
	if err := e.call(t, "read_tool"); err != nil {
		t.Fatalf("after revoking everything: %v", err)
	}
	if n, _, _ := a.counts(); n != before+1 {
		t.Errorf("after revoking everything: %d authorizations, want %d", n, before+1)
	}

	// A restarted program uses the stored grant: no new sign-in.
	after, _, _ := a.counts()
	e2, err := newOAuthEnv(t, a, &mcpadapter.OAuth{Authorize: func(context.Context, *mcpadapter.AuthorizationRequest) (*auth.AuthorizationResult, error) {
		t.Error("the restarted program asked the user to sign in again")
		return nil, fmt.Errorf("no user")
	}, Tokens: store}, &logs, &ledger)
	if err != nil {
		t.Fatal(err)
	}
	if err := e2.call(t, "read_tool"); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := a.counts(); n != after {
		t.Errorf("restart: %d authorizations, want %d", n, after)
	}

	// A restart after the access token expired refreshes it before use: no
	// 401, no sign-in.
	key := mcpadapter.TokenKey{Server: "protected", Resource: a.url + "/mcp"}
	tok, err := store.Token(context.Background(), key)
	if err != nil || tok.RefreshToken == "" {
		t.Fatalf("stored token: %v, %v", tok, err)
	}
	tok.Expiry = time.Now().Add(-time.Minute)
	if err := store.PutToken(context.Background(), key, tok); err != nil {
		t.Fatal(err)
	}
	_, refreshes, _ := a.counts()
	e3, err := newOAuthEnv(t, a, &mcpadapter.OAuth{Authorize: func(context.Context, *mcpadapter.AuthorizationRequest) (*auth.AuthorizationResult, error) {
		t.Error("a restart with an expired token asked the user to sign in")
		return nil, fmt.Errorf("no user")
	}, Tokens: store}, &logs, &ledger)
	if err != nil {
		t.Fatal(err)
	}
	if err := e3.call(t, "read_tool"); err != nil {
		t.Fatal(err)
	}
	if n, r, _ := a.counts(); n != after || r != refreshes+1 {
		t.Errorf("restart with an expired token: %d authorizations, %d refreshes; want %d and %d", n, r, after, refreshes+1)
	}
	if got, _ := store.Token(context.Background(), key); got == nil || got.AccessToken == tok.AccessToken || !got.Expiry.After(time.Now()) {
		t.Errorf("the refreshed token was not stored: %v", got)
	}
	e3.exec.Flush(context.Background())

	// The tokens are in the store (so the check below looks for the right
	// strings), and nowhere in the logs or the ledger.
	e.exec.Flush(context.Background())
	e2.exec.Flush(context.Background())
	stored, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	issued := slices.Clone(a.issued)
	a.mu.Unlock()
	found := 0
	for _, tok := range issued {
		if strings.Contains(string(stored), tok) {
			found++
		}
		for what, text := range map[string]string{"logs": logs.String(), "ledger": ledger.String()} {
			if strings.Contains(text, tok) {
				t.Errorf("token %s… appears in the %s", tok[:6], what)
			}
		}
	}
	if found == 0 {
		t.Error("no issued token is in the store")
	}
	if !strings.Contains(ledger.String(), `"tool":"read_tool"`) {
		t.Errorf("the ledger recorded no call:\n%s", ledger.String())
	}
}

func TestOAuthClientCredentials(t *testing.T) {
	a := newAuthServer(t)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	a.key = &key.PublicKey
	tests := []struct {
		name string
		cc   *mcpadapter.ClientCredentials
		ok   bool
	}{
		{"Secret", &mcpadapter.ClientCredentials{ClientID: "m2m", ClientSecret: "m2m-secret"}, true},
		{"PrivateKeyJWT", &mcpadapter.ClientCredentials{ClientID: "m2m", PrivateKey: key}, true},
		{"WrongSecret", &mcpadapter.ClientCredentials{ClientID: "m2m", ClientSecret: "guess"}, false},
		{"WrongKey", &mcpadapter.ClientCredentials{ClientID: "m2m", PrivateKey: mustKey(t)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs, ledger syncBuffer
			e, err := newOAuthEnv(t, a, &mcpadapter.OAuth{ClientCredentials: tt.cc}, &logs, &ledger)
			if !tt.ok {
				if err == nil {
					t.Fatal("connected with bad client credentials")
				}
				if strings.Contains(err.Error(), "guess") {
					t.Errorf("the error shows the secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := e.call(t, "read_tool"); err != nil {
				t.Fatal(err)
			}
			// A revoked token is replaced by a new grant: no user, no refresh token.
			a.revoke(false)
			if err := e.call(t, "read_tool"); err != nil {
				t.Fatalf("after revocation: %v", err)
			}
			if n, _, _ := a.counts(); n != 0 {
				t.Errorf("client credentials sent a user to authorize %d times", n)
			}
		})
	}
}

func mustKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestOAuthConfigErrors(t *testing.T) {
	reg := registry.New()
	m := mcpadapter.NewManager(reg, nil)
	defer m.Close()
	ctx := context.Background()
	for name, s := range map[string]mcpadapter.Upstream{
		"Stdio":                {Name: "s", Command: "true", OAuth: &mcpadapter.OAuth{}},
		"SSE":                  {Name: "s", URL: "http://127.0.0.1:1/sse", SSE: true, OAuth: &mcpadapter.OAuth{}},
		"BothCredentials":      {Name: "s", URL: "http://127.0.0.1:1/mcp", OAuth: &mcpadapter.OAuth{ClientCredentials: &mcpadapter.ClientCredentials{ClientID: "x", ClientSecret: "y", PrivateKey: mustKey(t)}}},
		"NoRegistration":       {Name: "s", URL: "http://127.0.0.1:1/mcp", OAuth: &mcpadapter.OAuth{NoDynamicRegistration: true}},
		"EnterpriseIncomplete": {Name: "s", URL: "http://127.0.0.1:1/mcp", OAuth: &mcpadapter.OAuth{Enterprise: &mcpadapter.EnterpriseAuth{ClientID: "x"}}},
		"TwoGrants": {Name: "s", URL: "http://127.0.0.1:1/mcp", OAuth: &mcpadapter.OAuth{
			ClientCredentials: &mcpadapter.ClientCredentials{ClientID: "x", ClientSecret: "y"},
			Enterprise:        &mcpadapter.EnterpriseAuth{IDToken: func(context.Context) (string, error) { return "", nil }, IdPTokenURL: "http://idp/token", IdPClientID: "a", ClientID: "b"}}},
	} {
		if err := m.Connect(ctx, s); err == nil {
			t.Errorf("%s: Connect accepted an invalid OAuth configuration", name)
		}
	}
}

// TestOAuthTokensStayWithTheirServer: two servers of the same name (say,
// a configuration that moved) share a token store; neither is ever
// presented the other's tokens.
func TestOAuthTokensStayWithTheirServer(t *testing.T) {
	a, b := newAuthServer(t), newAuthServer(t)
	store := new(mcpadapter.MemoryTokenStore)
	var logs, ledger syncBuffer
	ea, err := newOAuthEnv(t, a, &mcpadapter.OAuth{Authorize: headless, Tokens: store}, &logs, &ledger)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := newOAuthEnv(t, b, &mcpadapter.OAuth{Authorize: headless, Tokens: store}, &logs, &ledger)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []*oauthEnv{ea, eb, ea, eb} {
		if err := e.call(t, "read_tool"); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range [][2]*authServer{{a, b}, {b, a}} {
		to, from := p[0], p[1]
		to.mu.Lock()
		from.mu.Lock()
		for _, tok := range to.presented {
			if slices.Contains(from.issued, tok) {
				t.Errorf("a token issued by %s was presented to %s", from.url, to.url)
			}
		}
		from.mu.Unlock()
		to.mu.Unlock()
	}
}

// TestOAuthIssuerChecks: the authorization response's iss (RFC 9207) must
// be the authorization server's issuer when present, and present when the
// server advertises it; authorization server metadata naming an issuer
// other than the one discovered is refused before the user is sent there.
// No token is stored after a refused response.
func TestOAuthIssuerChecks(t *testing.T) {
	for _, tt := range []struct {
		name      string
		supported bool
		iss       func(a *authServer) string
		ok        bool
	}{
		{"SupportedRight", true, func(a *authServer) string { return a.url }, true},
		// RFC 9207 §2.4 compares as strings: a trailing "/" is another issuer.
		{"SupportedTrailingSlash", true, func(a *authServer) string { return a.url + "/" }, false},
		{"SupportedMissing", true, func(*authServer) string { return "" }, false},
		{"SupportedWrong", true, func(*authServer) string { return "https://evil.example" }, false},
		{"NotAdvertisedMissing", false, func(*authServer) string { return "" }, true},
		{"NotAdvertisedWrong", false, func(*authServer) string { return "https://evil.example" }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newAuthServer(t)
			a.issSupported = tt.supported
			authorize := func(ctx context.Context, req *mcpadapter.AuthorizationRequest) (*auth.AuthorizationResult, error) {
				res, err := headless(ctx, req)
				if err == nil {
					res.Iss = tt.iss(a)
				}
				return res, err
			}
			store := new(mcpadapter.MemoryTokenStore)
			var logs, ledger syncBuffer
			_, err := newOAuthEnv(t, a, &mcpadapter.OAuth{Authorize: authorize, Tokens: store}, &logs, &ledger)
			if tt.ok != (err == nil) {
				t.Fatalf("Connect: %v; want success %v", err, tt.ok)
			}
			_, terr := store.Token(context.Background(), token.Key{Server: "protected", Resource: a.url + "/mcp"})
			if !tt.ok && !errors.Is(terr, token.ErrNotFound) {
				t.Errorf("a token was stored after a refused authorization response: %v", terr)
			}
		})
	}
	t.Run("MetadataIssuerMismatch", func(t *testing.T) {
		a := newAuthServer(t)
		a.metaIssuer = "https://evil.example"
		var logs, ledger syncBuffer
		_, err := newOAuthEnv(t, a, &mcpadapter.OAuth{Authorize: headless, Tokens: new(mcpadapter.MemoryTokenStore)}, &logs, &ledger)
		if err == nil {
			t.Fatal("Connect accepted metadata naming another issuer")
		}
		if n, _, _ := a.counts(); n != 0 {
			t.Errorf("%d authorization requests; want none: the user must not be sent to a mismatched issuer", n)
		}
	})
}
