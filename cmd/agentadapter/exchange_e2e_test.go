package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/agentadapter/agentadapter/internal/testpeers"
)

// gatewayResource is the audience of the callers' own tokens: serve's.
const gatewayResource = "https://gateway.test/mcp"

// exchangeProvider is oidc-provider (npm) running
// testdata/oidc-provider-exchange.mjs: RFC 8693 token exchange registered
// as a grant, signing with key.
type exchangeProvider struct {
	issuer string
}

func startExchangeProvider(t *testing.T, key *ecdsa.PrivateKey, upstream string, upstreamTTL int) *exchangeProvider {
	t.Helper()
	return startProvider(t, key, map[string]any{"upstream": upstream, "upstreamTTL": upstreamTTL})
}

// startProvider starts the provider with conf (the script's keys beside
// "jwk" and "gateway").
func startProvider(t *testing.T, key *ecdsa.PrivateKey, conf map[string]any) *exchangeProvider {
	t.Helper()
	b64 := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	pad := func(b []byte) []byte { return append(make([]byte, 32-len(b)), b...) }
	jwk := map[string]string{"kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256", "use": "sig",
		"x": b64(pad(key.X.Bytes())), "y": b64(pad(key.Y.Bytes())), "d": b64(pad(key.D.Bytes()))}
	conf["jwk"], conf["gateway"] = jwk, gatewayResource
	b, _ := json.Marshal(conf)
	confFile := filepath.Join(t.TempDir(), "provider.json")
	if err := os.WriteFile(confFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var v struct{ Issuer string }
	if err := json.Unmarshal(testpeers.OIDCProvider(t, filepath.Join("testdata", "oidc-provider-exchange.mjs"), confFile), &v); err != nil || v.Issuer == "" {
		t.Fatalf("oidc-provider did not print its issuer: %v", err)
	}
	p := &exchangeProvider{issuer: v.Issuer}
	return p
}

// startIdP starts the upstream and its provider (conf, with "upstream"
// set to the upstream's URL), both on one new ES256 key, and writes the
// provider's public key to dir/idp.pem for auth.jwt's publicKeyFile.
func startIdP(t *testing.T, dir string, conf map[string]any) (*exchangeUpstream, *exchangeProvider, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	up := startExchangeUpstream(t, key)
	conf["upstream"] = up.url
	p := startProvider(t, key, conf)
	up.issuer.Store(&p.issuer)
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err := os.WriteFile(filepath.Join(dir, "idp.pem"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return up, p, key
}

// whoami calls the upstream's whoami through the gateway at base as the
// caller of inbound, in a new session, and returns its text and IsError.
func whoami(t *testing.T, base, inbound string) (string, bool) {
	t.Helper()
	cs, err := connectBearer(t, base+"/mcp", inbound)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	return text(res), res.IsError
}

// mint is the test-only shortcut for a user's sign-in: a gateway token
// for account, from the provider's urn:agentadapter:test:mint grant.
func (p *exchangeProvider) mint(t *testing.T, account string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", p.issuer+"/token", strings.NewReader(url.Values{
		"grant_type": {"urn:agentadapter:test:mint"}, "account": {account}, "resource": {gatewayResource}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("tester", "tester-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || v.AccessToken == "" {
		t.Fatalf("minting %s's token: %d %v", account, resp.StatusCode, err)
	}
	return v.AccessToken
}

func (p *exchangeProvider) post(t *testing.T, path string) []byte {
	t.Helper()
	resp, err := http.Post(p.issuer+path, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b
}

func (p *exchangeProvider) exchanges(t *testing.T) int {
	t.Helper()
	var v struct{ Exchanges int }
	json.Unmarshal(p.post(t, "/test/exchanges"), &v)
	return v.Exchanges
}

// exchangeUpstream is a go-sdk server behind auth.RequireBearerToken whose
// verifier accepts only the provider's JWTs for its own URL (signature,
// issuer, audience) and records every token and subject it is sent.
type exchangeUpstream struct {
	url    string
	issuer atomic.Pointer[string]
	mu     sync.Mutex
	tokens []string
	subs   []string
}

func startExchangeUpstream(t *testing.T, key *ecdsa.PrivateKey) *exchangeUpstream {
	t.Helper()
	u := &exchangeUpstream{}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	u.url = srv.URL + "/mcp"
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{Resource: u.url,
			AuthorizationServers: []string{*u.issuer.Load()}}).ServeHTTP(w, r)
	})
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: &jsonschema.Schema{Type: "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "upstream user " + req.Extra.TokenInfo.UserID}}}, nil
		})
	verify := auth.RequireBearerToken(func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		u.mu.Lock()
		u.tokens = append(u.tokens, tok)
		u.mu.Unlock()
		claims := jwt.MapClaims{}
		_, err := jwt.NewParser(jwt.WithValidMethods([]string{"ES256"}), jwt.WithIssuer(*u.issuer.Load()),
			jwt.WithAudience(u.url), jwt.WithExpirationRequired()).ParseWithClaims(tok, claims, func(*jwt.Token) (any, error) { return &key.PublicKey, nil })
		if err != nil {
			return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
		}
		sub, _ := claims.GetSubject()
		exp, _ := claims.GetExpirationTime()
		u.mu.Lock()
		u.subs = append(u.subs, sub)
		u.mu.Unlock()
		return &auth.TokenInfo{UserID: sub, Expiration: exp.Time}, nil
	}, &auth.RequireBearerTokenOptions{ResourceMetadataURL: srv.URL + "/.well-known/oauth-protected-resource/mcp"})
	mux.Handle("/mcp", verify(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	return u
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func connectBearer(t *testing.T, endpoint, token string) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// TestServeTokenExchange is #27's token-exchange acceptance test through
// the built command: oidc-provider (npm, with an RFC 8693 grant this test's
// script registers) issues alice's and bob's own tokens for serve, which
// verifies them (auth.jwt, the provider's key) and, for the upstream
// configured oauth.perCaller + oauth.tokenExchange, exchanges each caller's
// token at the provider for one for the upstream. The upstream, behind
// auth.RequireBearerToken checking the provider's signature and its own
// audience, sees alice's calls as alice and bob's as bob (in new sessions
// and in parallel too), never a caller's inbound token; a caller without a
// valid token is refused by serve; N calls make one exchange while the
// exchanged token is cached; revoking alice's grant at the provider stops
// alice, and only her, on her first call after the cached exchange expires
// (the exchanged tokens live 4s, cached 2s: half, the skew's cap); the
// refusal's text is bounded and names no token.
func TestServeTokenExchange(t *testing.T) {
	dir := t.TempDir()
	up, p, _ := startIdP(t, dir, map[string]any{"upstreamTTL": 4})
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"up": {"type": "http", "url": %q}},
  "agentadapter": {"store": "sqlite:${STATE}/state.db", "policy": {"approval": {"default": "never"}},
    "auth": {"jwt": {"publicKeyFile": "idp.pem", "issuer": %q, "audience": %q}},
    "servers": {"up": {"trust": "trusted", "oauth": {"perCaller": true, "issuer": %q, "tokens": "tokens.json",
      "clientCredentials": {"clientId": "gw", "clientSecret": "${GW_SECRET}"},
      "tokenExchange": {"clientId": "gw", "clientSecret": "${GW_SECRET}"}}}}}}`, up.url, p.issuer, gatewayResource, p.issuer))
	tokenKey := make([]byte, 32)
	rand.Read(tokenKey)
	env := []string{"STATE=" + dir + "/state", "GW_SECRET=gw-exchange-secret", "AGENTADAPTER_TOKEN_KEY=" + base64.StdEncoding.EncodeToString(tokenKey)}

	// Without the key, serve refuses to start.
	r := runBin(t, dir, append(env[:2:2], "AGENTADAPTER_TOKEN_KEY=", "AGENTADAPTER_TOKEN_KEY_FILE="), "serve", "--listen", "127.0.0.1:0", "--config", "gateway.json")
	if r.code == 0 || !strings.Contains(r.stderr+r.stdout, "AGENTADAPTER_TOKEN_KEY") || !strings.Contains(r.stderr+r.stdout, "perCaller") {
		t.Fatalf("serve without a token key: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	s := startServe(t, dir, env, "--config", "gateway.json")
	endpoint := s.base + "/mcp"
	aliceTok, bobTok := p.mint(t, "alice"), p.mint(t, "bob")
	call := func(cs *mcp.ClientSession) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("CallTool: %v", err)
		}
		return text(res), res.IsError
	}
	session := func(tok string) *mcp.ClientSession {
		t.Helper()
		cs, err := connectBearer(t, endpoint, tok)
		if err != nil {
			t.Fatalf("connecting: %v", err)
		}
		return cs
	}
	alice, bob := session(aliceTok), session(bobTok)
	if got, isErr := call(alice); isErr || got != "upstream user alice" {
		t.Fatalf("alice's call: %q\n%s", got, s.out.String())
	}
	if got, isErr := call(bob); isErr || got != "upstream user bob" {
		t.Fatalf("bob's call: %q", got)
	}
	if got, _ := call(session(bobTok)); got != "upstream user bob" {
		t.Errorf("bob in a new session: %q", got)
	}
	// Parallel calls never cross.
	var wg sync.WaitGroup
	errs := make(chan string, 40)
	for i := range 20 {
		name, cs := "alice", alice
		if i%2 == 1 {
			name, cs = "bob", bob
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
			if err != nil {
				errs <- err.Error()
			} else if got := text(res); got != "upstream user "+name {
				errs <- fmt.Sprintf("%s got %q", name, got)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	// Caching: more calls within the cached exchange's life make none.
	time.Sleep(2200 * time.Millisecond) // past the cached life (2s)
	n := p.exchanges(t)
	var took []time.Duration
	for range 5 {
		start := time.Now()
		call(alice)
		took = append(took, time.Since(start))
	}
	t.Logf("alice's call with an exchange: %v; the next four, cached: %v", took[0], took[1:])
	if got := p.exchanges(t) - n; got != 1 {
		t.Errorf("5 calls of alice made %d exchanges, want 1", got)
	}

	// The upstream never saw an inbound token: every token it was sent
	// is for its own audience, and none is alice's or bob's.
	up.mu.Lock()
	for _, tok := range up.tokens {
		if tok == aliceTok || tok == bobTok {
			t.Error("the upstream was sent a caller's inbound token")
		}
	}
	subs := strings.Join(up.subs, ",")
	up.mu.Unlock()
	if !strings.Contains(subs, "alice") || !strings.Contains(subs, "bob") {
		t.Errorf("the upstream's subjects: %s", subs)
	}

	// No token, a forged one, another audience's: refused by serve.
	forged := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"sub": "alice", "iss": p.issuer, "aud": gatewayResource, "exp": time.Now().Add(time.Hour).Unix()})
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	forgedTok, _ := forged.SignedString(other)
	for name, tok := range map[string]string{"no token": "", "forged": forgedTok, "garbage": "not-a-token"} {
		if cs, err := connectBearer(t, endpoint, tok); err == nil {
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}}); err == nil {
				t.Errorf("%s: a call went through", name)
			}
		}
	}

	// Revoking alice's grant stops alice, and only her, on her first call
	// after her cached exchange expires.
	p.post(t, "/test/revoke?account=alice")
	time.Sleep(2200 * time.Millisecond)
	got, isErr := call(alice)
	if !isErr || !strings.Contains(got, "refused this user") || !strings.Contains(got, "invalid_grant") {
		t.Errorf("alice after revocation: %q", got)
	}
	if len(got) > 1000 || strings.Contains(got, aliceTok) || strings.Contains(got, "eyJ") || strings.Contains(got, "gw-exchange-secret") {
		t.Errorf("the refusal is unbounded or carries a token: %q", got)
	}
	if got, isErr := call(bob); isErr || got != "upstream user bob" {
		t.Errorf("bob after alice's revocation: %q", got)
	}
	if got, isErr := call(session(p.mint(t, "alice"))); isErr || got != "upstream user alice" {
		t.Errorf("alice signed in anew: %q", got)
	}

	// The ledger and serve's log carry no token.
	out := s.out.String()
	for _, tok := range []string{aliceTok, bobTok, "gw-exchange-secret"} {
		if strings.Contains(out, tok) {
			t.Errorf("serve's log carries a secret")
		}
	}
	s.stop(t)
	for _, rec := range ledgerRecords(t, dir, env) {
		b, _ := json.Marshal(rec)
		if strings.Contains(string(b), "eyJ") {
			t.Errorf("a ledger record carries a token: %s", b)
		}
	}
}
