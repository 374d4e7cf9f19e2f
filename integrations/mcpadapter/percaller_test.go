package mcpadapter_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
	"github.com/agentadapter/agentadapter/registry"
)

// perCallerUpstream is a go-sdk server behind auth.RequireBearerToken whose
// "whoami" tool answers with the user its verifier mapped the token to. It
// serves its protected resource metadata and its authorization server's
// metadata (issuer = the server's origin), so discovery yields the issuer.
func perCallerUpstream(t *testing.T, users *sync.Map) (resource, issuer string) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	resource, issuer = srv.URL+"/mcp", srv.URL
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: resource, AuthorizationServers: []string{issuer}}))
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"issuer": issuer, "authorization_endpoint": issuer + "/authorize",
			"token_endpoint": issuer + "/token", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}})
	})
	userOf := func(e *mcp.RequestExtra) string {
		if e != nil && e.TokenInfo != nil {
			return e.TokenInfo.UserID
		}
		return "(none)"
	}
	// Its resource, prompt and completions answer with the user too.
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1"}, &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, r *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"user-" + userOf(r.Extra)}}}, nil
		}})
	s.AddResource(&mcp.Resource{URI: "test://whoami", Name: "whoami", MIMEType: "text/plain"}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: "upstream user " + userOf(r.Extra)}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "whoami", Arguments: []*mcp.PromptArgument{{Name: "who"}}}, func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "upstream user " + userOf(r.Extra)}}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			user := "(none)"
			if ti := req.Extra.TokenInfo; ti != nil {
				user = ti.UserID
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "upstream user " + user}}}, nil
		})
	verify := auth.RequireBearerToken(func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		if u, ok := users.Load(tok); ok {
			return &auth.TokenInfo{UserID: u.(string), Expiration: time.Now().Add(time.Hour)}, nil
		}
		return nil, auth.ErrInvalidToken
	}, &auth.RequireBearerTokenOptions{ResourceMetadataURL: srv.URL + "/.well-known/oauth-protected-resource/mcp"})
	mux.Handle("/mcp", verify(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	return resource, issuer
}

// perCallerSetup starts perCallerUpstream with three users (service, alice
// and bob, by the upstream tokens up-svc, up-alice and up-bob) and returns
// them, the upstream and an empty per-user file store, sealed.
func perCallerSetup(t *testing.T) (users *sync.Map, resource, issuer string, store *token.FileStore) {
	t.Helper()
	users = new(sync.Map)
	for tok, u := range map[string]string{"up-svc": "service", "up-alice": "alice", "up-bob": "bob"} {
		users.Store(tok, u)
	}
	resource, issuer = perCallerUpstream(t, users)
	key := make([]byte, 32)
	rand.Read(key)
	keys, err := token.NewKeyring(key)
	if err != nil {
		t.Fatal(err)
	}
	store, err = token.OpenFileStore(filepath.Join(t.TempDir(), "tokens.json"), token.StoreOptions{Keys: keys, PerUser: true})
	if err != nil {
		t.Fatal(err)
	}
	return users, resource, issuer, store
}

// TestPerCallerUpstream is #27's per-caller mode through the export: alice
// and bob authenticate to the export with their own inbound tokens; the
// upstream, imported with OAuth.PerCaller, sees each call with the caller's
// own upstream token (from an encrypted file store, keyed by subject and
// the discovered issuer); carol, with no token, and an anonymous caller get
// the sign-in error; deleting alice's token stops only alice.
func TestPerCallerUpstream(t *testing.T) {
	ctx := context.Background()
	users, resource, issuer, store := perCallerSetup(t)
	put := func(k token.Key, access string) {
		t.Helper()
		if err := store.PutToken(ctx, k, &token.Token{AccessToken: access, TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	userKey := func(sub string) token.Key {
		return token.Key{Server: "up", Subject: sub, Issuer: issuer, Resource: resource}
	}
	put(token.Key{Server: "up", Resource: resource}, "up-svc") // the shared identity: lists the tools
	put(userKey("alice"), "up-alice")
	put(userKey("bob"), "up-bob")
	// A token of carol's under another issuer is another credential: not
	// sent to this server.
	put(token.Key{Server: "up", Subject: "carol", Issuer: "https://other.example", Resource: resource}, "up-alice")

	reg := registry.New()
	// The approval port and the ledger see what each call reached the
	// upstream with: the caller's own credential.
	var asked sync.Map // subject -> "server credential"
	port := portFunc(func(_ context.Context, req *approval.Request) (approval.Decision, error) {
		asked.Store(req.Subject, req.Server+" "+req.Credential)
		return approval.Decision{Verdict: approval.VerdictApproved, Approver: "test"}, nil
	})
	led := ledger.NewMemory(1000)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: led,
		Approval: adapter.ApprovalOptions{Port: port, Policy: adapter.ApproveAlways}})
	defer exec.Close()
	m := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Executor: exec, ConnectTimeout: 10 * time.Second})
	defer m.Close()
	noSignIn := func(context.Context, *oauth.AuthorizationRequest) (*auth.AuthorizationResult, error) {
		t.Error("a sign-in was started")
		return nil, errors.New("no sign-in here")
	}
	if err := m.Connect(ctx, mcpadapter.Upstream{Name: "up", URL: resource,
		OAuth: &oauth.Config{PerCaller: true, Tokens: store, Authorize: noSignIn}}); err != nil {
		t.Fatal(err)
	}
	ex := newExporter(t, reg, exec, nil)
	verifier := func(ctx context.Context, tok string, r *http.Request) (*auth.TokenInfo, error) {
		if tok == "carol" {
			return &auth.TokenInfo{UserID: "carol", Expiration: time.Now().Add(time.Hour)}, nil
		}
		return exVerifier(ctx, tok, r)
	}
	srv := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: verifier}})
	anon := exServeHTTP(t, ex, nil)

	call := func(cs *mcp.ClientSession) (kind, text string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("CallTool: %v", err)
		}
		text = res.Content[0].(*mcp.TextContent).Text
		if !res.IsError {
			return "", text
		}
		var p adapter.Payload
		if err := json.Unmarshal([]byte(text), &p); err != nil {
			t.Fatalf("error payload %q: %v", text, err)
		}
		return string(p.Error.Kind), p.Error.Message
	}
	alice := exConnectHTTP(t, srv.URL, nil, bearerClient("alice"))
	bob := exConnectHTTP(t, srv.URL, nil, bearerClient("bob"))
	carol := exConnectHTTP(t, srv.URL, nil, bearerClient("carol"))
	nobody := exConnectHTTP(t, anon.URL, nil, nil)

	if _, text := call(alice); text != "upstream user alice" {
		t.Errorf("alice's call: %q", text)
	}
	if _, text := call(bob); text != "upstream user bob" {
		t.Errorf("bob's call: %q", text)
	}
	for name, cs := range map[string]*mcp.ClientSession{"carol": carol, "anonymous": nobody} {
		kind, msg := call(cs)
		if kind != string(adapter.KindToolError) || !strings.Contains(msg, "sign in") || strings.Contains(msg, "upstream user") {
			t.Errorf("%s's call: %s %q, want the sign-in error", name, kind, msg)
		}
		for _, secret := range []string{"up-svc", "up-alice", "up-bob"} {
			if strings.Contains(msg, secret) {
				t.Errorf("%s's error names a token: %q", name, msg)
			}
		}
	}
	if _, text := call(exConnectHTTP(t, srv.URL, nil, bearerClient("bob"))); text != "upstream user bob" {
		t.Errorf("bob in a new session: %q", text)
	}
	for _, who := range []string{"alice", "bob", "carol"} {
		if v, _ := asked.Load(who); v != "up caller" {
			t.Errorf("the approval port was asked about %s's call with %q, want \"up caller\"", who, v)
		}
	}
	if err := exec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, r := range led.Records() {
		if r.Tool == "whoami" && r.Credential != "caller" {
			t.Errorf("%s's record: credential %q, want caller", r.Subject, r.Credential)
		}
	}
	if err := led.Verify(ctx); err != nil {
		t.Errorf("the chain with credentials: %v", err)
	}

	// Concurrency: alice and bob in parallel never cross.
	var wg sync.WaitGroup
	errs := make(chan string, 40)
	for i := 0; i < 20; i++ {
		for name, cs := range map[string]*mcp.ClientSession{"alice": alice, "bob": bob} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
				if err != nil {
					errs <- err.Error()
					return
				}
				if got := res.Content[0].(*mcp.TextContent).Text; got != "upstream user "+name {
					errs <- fmt.Sprintf("%s got %q", name, got)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	// Disconnecting alice (her token deleted) stops only alice, at once:
	// her open upstream session does not keep her token.
	if err := store.DeleteToken(ctx, userKey("alice")); err != nil {
		t.Fatal(err)
	}
	if kind, msg := call(alice); kind != string(adapter.KindToolError) || !strings.Contains(msg, "sign in") {
		t.Errorf("alice after disconnecting: %s %q, want the sign-in error", kind, msg)
	}
	if _, text := call(bob); text != "upstream user bob" {
		t.Errorf("bob after alice disconnected: %q", text)
	}
	// Signing in again (a token stored anew) works without a reconnect.
	put(userKey("alice"), "up-alice")
	if _, text := call(alice); text != "upstream user alice" {
		t.Errorf("alice after signing in again: %q", text)
	}

	// Alice's grant revoked at the upstream (her stored token refused, no
	// refresh token): she is told to sign in again (go-sdk's 401 path, not
	// the stored-token check); bob is not affected.
	users.Delete("up-alice")
	if kind, msg := call(alice); kind != string(adapter.KindToolError) || !strings.Contains(msg, "sign in") || strings.Contains(msg, "up-alice") {
		t.Errorf("alice with a revoked grant: %s %q, want the sign-in error", kind, msg)
	}
	if _, text := call(bob); text != "upstream user bob" {
		t.Errorf("bob after alice's grant was revoked: %q", text)
	}
}

// TestPerCallerConfig: PerCaller is for user sign-in only, and ForCaller
// needs a PerCaller handler.
func TestPerCallerConfig(t *testing.T) {
	_, err := oauth.NewHandler("up", "https://mcp.example/mcp", &oauth.Config{PerCaller: true,
		ClientCredentials: &oauth.ClientCredentials{ClientID: "m2m", ClientSecret: "s"}}, nil)
	if err == nil {
		t.Error("PerCaller with ClientCredentials accepted")
	}
	h, err := oauth.NewHandler("up", "https://mcp.example/mcp", &oauth.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.ForCaller(context.Background(), "alice"); err == nil {
		t.Error("ForCaller of a shared handler accepted")
	}
}

// portFunc is an approval port from a function.
type portFunc func(context.Context, *approval.Request) (approval.Decision, error)

func (f portFunc) Decide(ctx context.Context, req *approval.Request) (approval.Decision, error) {
	return f(ctx, req)
}
