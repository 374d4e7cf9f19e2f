package mcpadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

// signInAS starts oidc-provider (testdata/oidc-provider-signin.mjs) for
// resource and returns its issuer and the verifier of its access tokens
// (ES256 JWTs for resource), which maps a token to its sub.
func signInAS(t *testing.T, resource string) (issuer string, verify func(tok string) (string, error)) {
	t.Helper()
	var as struct {
		Issuer string         `json:"issuer"`
		JWK    map[string]any `json:"jwk"`
	}
	if err := json.Unmarshal(testpeers.OIDCProvider(t, filepath.Join("testdata", "oidc-provider-signin.mjs"), resource), &as); err != nil || as.Issuer == "" {
		t.Fatalf("oidc-provider did not print its issuer: %v", err)
	}
	key, _, err := jwkPublic(as.JWK)
	if err != nil {
		t.Fatal(err)
	}
	return as.Issuer, func(tok string) (string, error) {
		var claims jwt.RegisteredClaims
		if _, err := jwt.ParseWithClaims(tok, &claims, func(*jwt.Token) (any, error) { return key, nil },
			jwt.WithValidMethods([]string{"ES256"}), jwt.WithIssuer(as.Issuer), jwt.WithAudience(resource)); err != nil {
			return "", err
		}
		return claims.Subject, nil
	}
}

// signInUpstream is a go-sdk server behind auth.RequireBearerToken that
// accepts the authorization server's JWTs (and "up-svc", the shared
// identity's token, which lists the tools); its "whoami" tool answers with
// the token's subject.
func signInUpstream(t *testing.T) (resource string, setIssuer func(string, func(string) (string, error))) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	resource = srv.URL + "/mcp"
	var mu sync.Mutex
	var issuer string
	var verify func(string) (string, error)
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		iss := issuer
		mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"resource": resource, "authorization_servers": []string{iss}, "scopes_supported": []string{"read"}})
	})
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "upstream user " + req.Extra.TokenInfo.UserID}}}, nil
		})
	check := auth.RequireBearerToken(func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		if tok == "up-svc" {
			return &auth.TokenInfo{UserID: "service", Expiration: time.Now().Add(time.Hour)}, nil
		}
		mu.Lock()
		v := verify
		mu.Unlock()
		if sub, err := v(tok); err == nil && sub != "" {
			return &auth.TokenInfo{UserID: sub, Expiration: time.Now().Add(time.Hour)}, nil
		}
		return nil, auth.ErrInvalidToken
	}, &auth.RequireBearerTokenOptions{ResourceMetadataURL: srv.URL + "/.well-known/oauth-protected-resource/mcp"})
	mux.Handle("/mcp", check(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	return resource, func(iss string, v func(string) (string, error)) {
		mu.Lock()
		defer mu.Unlock()
		issuer, verify = iss, v
	}
}

// signInGateway starts the upstream, oidc-provider as its authorization
// server (verify maps its tokens to their subject), and a gateway's
// sign-in pages (signIns, at gw's /oauth/), with store holding the shared
// identity's token (which lists the tools).
func signInGateway(t *testing.T) (resource, issuer string, verify func(string) (string, error), gw *httptest.Server, signIns *oauth.SignIns, store *token.MemoryStore) {
	t.Helper()
	resource, setIssuer := signInUpstream(t)
	issuer, verify = signInAS(t, resource)
	setIssuer(issuer, verify)
	gwMux := http.NewServeMux()
	gw = httptest.NewServer(gwMux)
	t.Cleanup(gw.Close)
	signIns = &oauth.SignIns{BaseURL: gw.URL}
	gwMux.Handle("/oauth/", signIns)
	store = new(token.MemoryStore)
	store.PutToken(context.Background(), token.Key{Server: "up", Resource: resource}, &token.Token{AccessToken: "up-svc", TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)})
	return resource, issuer, verify, gw, signIns, store
}

// TestSignInOIDCProvider is #27's per-user sign-in end to end, with
// oidc-provider as the authorization server: alice's client declares URL
// elicitation, so her first call sends her the sign-in page, which her
// browser completes at the gateway's callback, and the call goes on as
// her; bob's client does not, so he gets the sign-in error with his own
// link, completes it and calls again. The upstream sees each one's
// subject. Then the attacks on the callback: a forged state, another
// browser completing alice's state, a replay, bob's code injected into
// alice's browser, an issuer that differs, an error callback with markup,
// an expired sign-in, a start link opened twice, another user's link under
// a browser login, and the per-subject bound.
func TestSignInOIDCProvider(t *testing.T) {
	ctx := context.Background()
	resource, issuer, verify, gw, signIns, store := signInGateway(t)
	callbackPrefix := gw.URL + "/oauth/callback"
	cfg := &oauth.Config{PerCaller: true, Tokens: store, SignIn: signIns, ClientName: "gateway-test",
		Authorize: func(context.Context, *oauth.AuthorizationRequest) (*auth.AuthorizationResult, error) {
			t.Error("the shared identity's sign-in was started")
			return nil, errors.New("no")
		}}

	reg := registry.New()
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	m := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Executor: exec, ConnectTimeout: 10 * time.Second, CallTimeout: time.Minute})
	defer m.Close()
	if err := m.Connect(ctx, mcpadapter.Upstream{Name: "up", URL: resource, OAuth: cfg}); err != nil {
		t.Fatal(err)
	}
	ex := newExporter(t, reg, exec, nil)
	srv := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}})

	call := func(cs *mcp.ClientSession) (isError bool, text string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("CallTool: %v", err)
		}
		text = res.Content[0].(*mcp.TextContent).Text
		if res.IsError {
			var p adapter.Payload
			if json.Unmarshal([]byte(text), &p) == nil && p.Error.Message != "" {
				text = p.Error.Message
			}
		}
		return res.IsError, text
	}

	// Alice: URL elicitation. Her client opens the page in her browser
	// and accepts; the call waits for the callback, then runs as alice.
	aliceBrowser := testpeers.NewBrowser(t)
	var completed sync.Map
	var elicited []string
	var pageMu sync.Mutex
	var alicePage string
	done := make(chan struct{}, 4)
	alice := exConnectHTTP(t, srv.URL, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Mode != "url" || !strings.HasPrefix(req.Params.URL, gw.URL+"/oauth/start?") {
				t.Errorf("elicitation %+v, want a URL one of the gateway's start page", req.Params)
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			elicited = append(elicited, req.Params.ElicitationID)
			go func() {
				defer func() { done <- struct{}{} }()
				_, body, _ := aliceBrowser.SignIn(req.Params.URL, "alice", callbackPrefix, false)
				pageMu.Lock()
				alicePage = body
				pageMu.Unlock()
			}()
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
			completed.Store(req.Params.ElicitationID, true)
		},
	}, bearerClient("alice"))
	if isErr, text := call(alice); isErr || text != "upstream user alice" {
		t.Fatalf("alice's first call: %v %q, want it to go on after her sign-in", isErr, text)
	}
	<-done
	pageMu.Lock()
	if !strings.Contains(alicePage, "is connected") {
		t.Errorf("alice's callback page: %.300s", alicePage)
	}
	pageMu.Unlock()
	if len(elicited) != 1 {
		t.Fatalf("%d elicitations, want 1", len(elicited))
	}
	waitFor(t, func() bool { _, ok := completed.Load(elicited[0]); return ok }, "notifications/elicitation/complete")
	aliceKey := token.Key{Server: "up", Subject: "alice", Issuer: issuer, Resource: resource}
	aliceTok, err := store.Token(ctx, aliceKey)
	if err != nil {
		t.Fatalf("alice's token: %v", err)
	}
	if sub, err := verify(aliceTok.AccessToken); err != nil || sub != "alice" {
		t.Errorf("alice's stored token is of %q (%v)", sub, err)
	}

	// Bob: no URL elicitation; the error carries his own link.
	bob := exConnectHTTP(t, srv.URL, nil, bearerClient("bob"))
	isErr, msg := call(bob)
	link := regexp.MustCompile(`https?://\S+/oauth/start\?state=[A-Za-z0-9%]+`).FindString(msg)
	if !isErr || link == "" || !strings.Contains(msg, "sign in") {
		t.Fatalf("bob's first call: %v %q, want the sign-in error with his link", isErr, msg)
	}
	bobBrowser := testpeers.NewBrowser(t)
	if _, body, _ := bobBrowser.SignIn(link, "bob", callbackPrefix, false); !strings.Contains(body, "is connected") {
		t.Fatalf("bob's sign-in: %.300s", body)
	}
	if isErr, text := call(bob); isErr || text != "upstream user bob" {
		t.Errorf("bob's call after signing in: %v %q", isErr, text)
	}
	if isErr, text := call(alice); isErr || text != "upstream user alice" {
		t.Errorf("alice's call after bob signed in: %v %q", isErr, text)
	}

	// The attacks, through a handler of the same configuration.
	h, err := oauth.NewHandler("up", resource, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	begin := func(sub string) *oauth.SignInStart {
		t.Helper()
		s, err := h.BeginSignIn(ctx, sub, "session-"+sub)
		if err != nil {
			t.Fatalf("BeginSignIn(%s): %v", sub, err)
		}
		return s
	}
	failed := func(what string, status int, body string) {
		t.Helper()
		if status == http.StatusOK || !strings.Contains(body, "failed") || strings.Contains(body, "is connected") {
			t.Errorf("%s: %d %.300s, want the failure page", what, status, body)
		}
	}
	storedSub := func(sub string) string {
		t.Helper()
		tok, err := store.Token(ctx, token.Key{Server: "up", Subject: sub, Issuer: issuer, Resource: resource})
		if err != nil {
			return ""
		}
		s, _ := verify(tok.AccessToken)
		return s
	}
	store.DeleteToken(ctx, aliceKey)

	// A forged state.
	status, body, _ := testpeers.NewBrowser(t).Do(http.MethodGet, callbackPrefix+"?state=forged&code=x&iss="+url.QueryEscape(issuer), nil)
	failed("a forged state", status, body)

	// Alice's state, completed in bob's browser: refused, and alice's own
	// browser still completes it, once.
	start := begin("alice")
	_, _, cb := aliceBrowser.SignIn(start.URL, "alice", callbackPrefix, true)
	if cb == nil || !strings.HasPrefix(cb.String(), callbackPrefix) {
		t.Fatalf("alice's sign-in stopped at %v, want the callback", cb)
	}
	status, body, _ = bobBrowser.Do(http.MethodGet, cb.String(), nil)
	failed("alice's callback in bob's browser", status, body)
	if s := storedSub("alice"); s != "" {
		t.Errorf("alice's slot holds a token of %q after bob's attempt", s)
	}
	if status, body, _ = aliceBrowser.Do(http.MethodGet, cb.String(), nil); status != http.StatusOK || !strings.Contains(body, "is connected") {
		t.Errorf("alice's own callback: %d %.300s", status, body)
	}
	if s := storedSub("alice"); s != "alice" {
		t.Errorf("alice's slot holds a token of %q", s)
	}
	status, body, _ = aliceBrowser.Do(http.MethodGet, cb.String(), nil)
	failed("a replayed callback", status, body)

	// Bob's code injected into alice's browser, with her state: the
	// verifier is hers, the code his; the exchange fails and her slot
	// keeps her own token.
	store.DeleteToken(ctx, aliceKey)
	aliceStart := begin("alice")
	_, _, aliceCB := aliceBrowser.SignIn(aliceStart.URL, "alice", callbackPrefix, true)
	_, _, bobCB := bobBrowser.SignIn(begin("bob").URL, "bob", callbackPrefix, true)
	if aliceCB == nil || bobCB == nil {
		t.Fatal("a sign-in did not reach the callback")
	}
	forged := aliceCB.Query()
	forged.Set("code", bobCB.Query().Get("code"))
	status, body, _ = aliceBrowser.Do(http.MethodGet, callbackPrefix+"?"+forged.Encode(), nil)
	failed("bob's code with alice's state", status, body)
	if s := storedSub("alice"); s != "" {
		t.Errorf("alice's slot holds a token of %q after bob's code", s)
	}
	if s := storedSub("bob"); s != "bob" {
		t.Errorf("bob's slot: %q", s)
	}

	// An iss that differs (RFC 9207), and an error callback with markup.
	_, _, cb = aliceBrowser.SignIn(begin("alice").URL, "alice", callbackPrefix, true)
	q := cb.Query()
	q.Set("iss", "https://evil.example")
	status, body, _ = aliceBrowser.Do(http.MethodGet, callbackPrefix+"?"+q.Encode(), nil)
	failed("another issuer", status, body)
	start = begin("alice")
	st, _ := url.Parse(start.URL)
	eb := testpeers.NewBrowser(t)
	eb.NoRedirects()
	eb.Do(http.MethodPost, gw.URL+"/oauth/start", url.Values{"state": {st.Query().Get("state")}})
	status, body, _ = eb.Do(http.MethodGet, callbackPrefix+"?state="+url.QueryEscape(st.Query().Get("state"))+
		"&error=%3Cscript%3Ealert(1)%3C/script%3E&error_description=x", nil)
	failed("an error callback", status, body)
	if strings.Contains(body, "<script>") {
		t.Errorf("the failure page echoes markup: %s", body)
	}
	if s := storedSub("alice"); s != "" {
		t.Errorf("alice's slot after the failed sign-ins: %q", s)
	}

	// A start link opened in a second browser, after the first. The start
	// page asks for consent naming the authorization server and the
	// gateway's client (registered dynamically here) that will act for
	// the user.
	other := testpeers.NewBrowser(t)
	other.NoRedirects()
	start = begin("carol")
	st, _ = url.Parse(start.URL)
	if status, body, _ := other.Do(http.MethodGet, start.URL, nil); status != http.StatusOK ||
		!strings.Contains(body, html.EscapeString(issuer)) || !regexp.MustCompile(`client &#34;[^&]{8,}&#34; act for you`).MatchString(body) {
		t.Errorf("the start page does not name the authorization server and the client: %d %.600s", status, body)
	}
	if status, _, _ := other.Do(http.MethodPost, gw.URL+"/oauth/start", url.Values{"state": {st.Query().Get("state")}}); status != http.StatusSeeOther {
		t.Errorf("confirming the start page: %d", status)
	}
	status, body, _ = testpeers.NewBrowser(t).Do(http.MethodGet, start.URL, nil)
	failed("a start link opened twice", status, body)

	// The per-subject bound: the oldest of dave's sign-ins is forgotten.
	first := begin("dave")
	for range oauth.DefaultSignInsPerSubject {
		begin("dave")
	}
	status, body, _ = testpeers.NewBrowser(t).Do(http.MethodGet, first.URL, nil)
	failed("an evicted sign-in", status, body)

	// An expired sign-in, and another user's link under a browser login.
	short := &oauth.SignIns{BaseURL: gw.URL, TTL: 200 * time.Millisecond,
		BrowserSubject: func(r *http.Request) string { return r.Header.Get("X-Test-User") }}
	cfg2 := *cfg
	cfg2.SignIn = short
	h2, err := oauth.NewHandler("up", resource, &cfg2, nil)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := h2.BeginSignIn(ctx, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, user := range []string{"bob", ""} {
		req := httptest.NewRequest(http.MethodGet, s2.URL, nil)
		req.Header.Set("X-Test-User", user)
		rec := httptest.NewRecorder()
		short.ServeHTTP(rec, req)
		failed("alice's link in "+user+"'s browser login", rec.Code, rec.Body.String())
	}
	time.Sleep(300 * time.Millisecond)
	req := httptest.NewRequest(http.MethodGet, s2.URL, nil)
	req.Header.Set("X-Test-User", "alice")
	rec := httptest.NewRecorder()
	short.ServeHTTP(rec, req)
	failed("an expired sign-in", rec.Code, rec.Body.String())

	// A sign-in refused at the authorization server ends the call that
	// waits for it at once, with the sign-in error (not its timeout).
	refused := exConnectHTTP(t, srv.URL, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			go func() {
				b := testpeers.NewBrowser(t)
				b.NoRedirects()
				u, _ := url.Parse(req.Params.URL)
				state := u.Query().Get("state")
				b.Do(http.MethodPost, gw.URL+"/oauth/start", url.Values{"state": {state}})
				b.Do(http.MethodGet, callbackPrefix+"?error=access_denied&state="+url.QueryEscape(state), nil)
			}()
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	}, bearerClient("alice"))
	began := time.Now()
	if isErr, msg := call(refused); !isErr || !strings.Contains(msg, "sign in") {
		t.Errorf("alice's call with a refused sign-in: %v %q", isErr, msg)
	}
	if d := time.Since(began); d > 20*time.Second {
		t.Errorf("the call waited %v after the refusal", d)
	}

	// Bob sees his connection (never the token) and disconnects: his
	// grant is revoked at the authorization server (his refresh token is
	// refused there after), his token deleted; his next call is told to
	// sign in, and alice, signed in again, still calls as alice.
	conn, err := h.Connection(ctx, "bob")
	if err != nil || conn.Server != "up" || conn.Issuer != issuer || conn.Expiry.IsZero() || !conn.Refreshable {
		t.Fatalf("bob's connection: %+v, %v", conn, err)
	}
	if _, err := h.Connection(ctx, "carol"); !errors.Is(err, token.ErrNotFound) {
		t.Errorf("carol's connection: %v, want ErrNotFound", err)
	}
	bobTok, _ := store.Token(ctx, token.Key{Server: "up", Subject: "bob", Issuer: issuer, Resource: resource})
	if err := h.Disconnect(ctx, "bob"); err != nil {
		t.Fatalf("Disconnect: %v", err)
	}
	if s := storedSub("bob"); s != "" {
		t.Errorf("bob's slot after disconnecting: %q", s)
	}
	refresh := &oauth2.Config{ClientID: bobTok.ClientID, ClientSecret: bobTok.ClientSecret, Endpoint: oauth2.Endpoint{TokenURL: bobTok.TokenURL}}
	if _, err := refresh.TokenSource(ctx, &oauth2.Token{RefreshToken: bobTok.RefreshToken}).Token(); err == nil {
		t.Error("bob's refresh token still works after Disconnect")
	}
	if isErr, msg := call(bob); !isErr || !strings.Contains(msg, "sign in") {
		t.Errorf("bob after disconnecting: %v %q", isErr, msg)
	}
	_, body, _ = aliceBrowser.SignIn(begin("alice").URL, "alice", callbackPrefix, false)
	if isErr, text := call(alice); isErr || text != "upstream user alice" {
		t.Errorf("alice after bob disconnected: %v %q (%.200s)", isErr, text, body)
	}

	// Disconnecting alice stops only alice; bob, signed in again, still
	// calls as bob.
	bobBrowser.SignIn(begin("bob").URL, "bob", callbackPrefix, false)
	if err := h.Disconnect(ctx, "alice"); err != nil {
		t.Fatalf("Disconnect: %v", err)
	}
	// (Her client with URL elicitation would sign her in again: ask
	// through one without.)
	aliceNoURL := exConnectHTTP(t, srv.URL, nil, bearerClient("alice"))
	if isErr, msg := call(aliceNoURL); !isErr || !strings.Contains(msg, "sign in") || strings.Contains(msg, "upstream user") {
		t.Errorf("alice after disconnecting: %v %q, want the sign-in error", isErr, msg)
	}
	if isErr, text := call(bob); isErr || text != "upstream user bob" {
		t.Errorf("bob after alice disconnected: %v %q", isErr, text)
	}
}

func waitFor(t *testing.T, ok func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Errorf("no %s", what)
}

// TestSignInAcrossReplicas: two gateways (replicas) share a token store
// and a PendingStore. Alice's call on replica A sends her the sign-in
// page on A; the load balancer sends her browser's callback to replica
// B, which completes it (its own handler of the server), and the call
// waiting on A sees her token in the shared store and goes on as alice.
func TestSignInAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	resource, setIssuer := signInUpstream(t)
	issuer, verify := signInAS(t, resource)
	setIssuer(issuer, verify)
	store := new(token.MemoryStore)
	store.PutToken(ctx, token.Key{Server: "up", Resource: resource}, &token.Token{AccessToken: "up-svc", TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)})
	pending := new(oauth.MemoryPending)

	// One public base URL, the load balancer's: it sends /oauth/start to
	// A and /oauth/callback to B.
	lbMux := http.NewServeMux()
	lb := httptest.NewServer(lbMux)
	t.Cleanup(lb.Close)
	replica := func(mount string) (*mcp.ClientSession, *oauth.SignIns) {
		si := &oauth.SignIns{BaseURL: lb.URL, Pending: pending}
		lbMux.Handle(mount, si)
		reg := registry.New()
		exec := adapter.NewExecutor(reg, nil)
		t.Cleanup(func() { exec.Close() })
		m := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Executor: exec, ConnectTimeout: 10 * time.Second})
		t.Cleanup(func() { m.Close() })
		if err := m.Connect(ctx, mcpadapter.Upstream{Name: "up", URL: resource, OAuth: &oauth.Config{PerCaller: true, Tokens: store, SignIn: si}}); err != nil {
			t.Fatal(err)
		}
		srv := exServeHTTP(t, newExporter(t, reg, exec, nil), &mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}})
		b := testpeers.NewBrowser(t)
		cs := exConnectHTTP(t, srv.URL, &mcp.ClientOptions{
			Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
			ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				go b.SignIn(req.Params.URL, "alice", lb.URL+"/oauth/callback", false)
				return &mcp.ElicitResult{Action: "accept"}, nil
			},
		}, bearerClient("alice"))
		return cs, si
	}
	aliceOnA, _ := replica("/oauth/start")
	replica("/oauth/callback")
	res, err := aliceOnA.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; res.IsError || got != "upstream user alice" {
		t.Errorf("alice's call on A, signed in through B: %v %q", res.IsError, got)
	}
}

// TestSignInStateless is the per-user sign-in for callers of MCP
// 2026-07-28 on the stateless endpoint, which has no session a request can
// be sent on: alice's first call answers with an input-required result
// asking a URL elicitation of her start page; go-sdk's client puts it to
// her handler (her browser signs in) and calls again with her answer; the
// retry waits for the sign-in and runs as alice. A client that declines
// gets the sign-in error with the link; a client without URL elicitation
// gets it at once; bob cannot replay alice's requestState (the export
// binds it to her), and the retry of a forged start link begins nothing.
func TestSignInStateless(t *testing.T) {
	ctx := context.Background()
	resource, _, _, gw, signIns, store := signInGateway(t)
	callbackPrefix := gw.URL + "/oauth/callback"

	reg := registry.New()
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	m := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Executor: exec, ConnectTimeout: 10 * time.Second, CallTimeout: time.Minute})
	defer m.Close()
	if err := m.Connect(ctx, mcpadapter.Upstream{Name: "up", URL: resource, OAuth: &oauth.Config{PerCaller: true, Tokens: store, SignIn: signIns, ClientName: "gateway-test"}}); err != nil {
		t.Fatal(err)
	}
	srv := exServeHTTP(t, newExporter(t, reg, exec, nil), &mcpadapter.HTTPOptions{Stateless: true, Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}})
	urlCaps := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}
	whoami := func(cs *mcp.ClientSession) (*mcp.CallToolResult, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("CallTool: %v", err)
		}
		if len(res.Content) == 0 {
			return res, ""
		}
		return res, res.Content[0].(*mcp.TextContent).Text
	}
	linkRE := regexp.MustCompile(`https?://\S+/oauth/start\?state=[A-Za-z0-9%_-]+`)

	// A client that declines the question gets the link in the error.
	declined := connectStateless(t, srv.URL, &mcp.ClientOptions{Capabilities: urlCaps,
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}}, bearerClient("alice"))
	if res, text := whoami(declined); !res.IsError || !strings.HasPrefix(linkRE.FindString(text), gw.URL+"/oauth/start?") {
		t.Errorf("a declined sign-in: %v %q, want the sign-in error with the link", res.IsError, text)
	}
	// A client without URL elicitation gets the link at once.
	plain := connectStateless(t, srv.URL, nil, bearerClient("alice"))
	if res, text := whoami(plain); !res.IsError || linkRE.FindString(text) == "" {
		t.Errorf("a client without URL elicitation: %v %q", res.IsError, text)
	}

	// Bob replays the question alice was sent, with her requestState.
	raw := connectStateless(t, srv.URL, &mcp.ClientOptions{Capabilities: urlCaps, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}, bearerClient("alice"))
	first, _ := whoami(raw)
	if !first.NeedsInput() || first.RequestState == "" {
		t.Fatalf("alice's first call: %+v, want an input-required result", first)
	}
	q, ok := first.InputRequests["agentadapter/signin"].(*mcp.ElicitParams)
	if !ok || q.Mode != "url" || !strings.HasPrefix(q.URL, gw.URL+"/oauth/start?") {
		t.Fatalf("the question: %#v, want a URL elicitation of the start page", first.InputRequests)
	}
	bob := connectStateless(t, srv.URL, &mcp.ClientOptions{Capabilities: urlCaps, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}, bearerClient("bob"))
	res, err := bob.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}, RequestState: first.RequestState,
		InputResponses: mcp.InputResponseMap{"agentadapter/signin": &mcp.ElicitResult{Action: "accept"}}})
	if err == nil && !res.IsError && !res.NeedsInput() {
		t.Errorf("bob with alice's requestState: %+v", res)
	}

	// Alice's own client, with go-sdk's multi-round handling: her browser
	// signs in while the retry waits.
	done := make(chan string, 1)
	alice := connectStateless(t, srv.URL, &mcp.ClientOptions{Capabilities: urlCaps,
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Mode != "url" || !strings.HasPrefix(req.Params.URL, gw.URL+"/oauth/start?") {
				t.Errorf("elicitation %+v, want the start page", req.Params)
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			go func() {
				_, body, _ := testpeers.NewBrowser(t).SignIn(req.Params.URL, "alice", callbackPrefix, false)
				done <- body
			}()
			return &mcp.ElicitResult{Action: "accept"}, nil
		}}, bearerClient("alice"))
	if res, text := whoami(alice); res.IsError || text != "upstream user alice" {
		t.Fatalf("alice's call: %v %q, want it to go on after her sign-in", res.IsError, text)
	}
	if body := <-done; !strings.Contains(body, "is connected") {
		t.Errorf("alice's callback page: %.300s", body)
	}
	if res, text := whoami(plain); res.IsError || text != "upstream user alice" {
		t.Errorf("alice's next call, another client: %v %q", res.IsError, text)
	}
	if res, text := whoami(connectStateless(t, srv.URL, nil, bearerClient("bob"))); !res.IsError || strings.Contains(text, "upstream user") {
		t.Errorf("bob after alice's sign-in: %v %q", res.IsError, text)
	}
}
