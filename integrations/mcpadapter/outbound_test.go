package mcpadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// recorder is a server on its own origin that writes down every request
// it is sent: what an attacker's host would see.
type recorder struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []string // method, path, credential headers and body of each request
}

func newRecorder(t *testing.T, next http.Handler) *recorder {
	r := &recorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<16))
		r.mu.Lock()
		r.got = append(r.got, fmt.Sprintf("%s %s auth=%q key=%q body=%q", req.Method, req.URL.Path,
			req.Header.Get("Authorization"), req.Header.Get("X-Api-Key"), body))
		r.mu.Unlock()
		if next == nil {
			http.Error(w, "recorded", http.StatusTeapot)
			return
		}
		req.Body = io.NopCloser(strings.NewReader(string(body)))
		next.ServeHTTP(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

func mcpHandler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return protectedServer() }, &mcp.StreamableHTTPOptions{Stateless: true})
}

func connect(t *testing.T, s mcpadapter.Upstream) error {
	t.Helper()
	m := mcpadapter.NewManager(registry.New(), nil)
	t.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.Trust = true
	return m.Connect(ctx, s)
}

// TestUpstreamHeadersStayWithTheirOrigin: a server's configured headers and
// bearer token go to its URL's origin, on every hop there, and never
// follow a redirect to another origin; a redirect from https to http is
// refused.
func TestUpstreamHeadersStayWithTheirOrigin(t *testing.T) {
	const pat, key = "ghp_secret_pat", "sk-secret-key"
	headers := map[string]string{"X-Api-Key": key}
	t.Run("OtherOrigin", func(t *testing.T) {
		other := newRecorder(t, mcpHandler())
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.srv.URL+"/mcp", http.StatusTemporaryRedirect)
		}))
		t.Cleanup(front.Close)
		if err := connect(t, mcpadapter.Upstream{Name: "s", URL: front.URL + "/mcp", Headers: headers, BearerToken: pat}); err != nil {
			t.Fatalf("connecting through the redirect: %v", err)
		}
		got := other.requests()
		if len(got) == 0 {
			t.Fatal("the redirect was not followed")
		}
		for _, r := range got {
			if strings.Contains(r, pat) || strings.Contains(r, key) {
				t.Errorf("another origin was sent the configured credentials: %s", r)
			}
		}
	})
	t.Run("SameOrigin", func(t *testing.T) {
		var mu sync.Mutex
		var seen []string
		mux := http.NewServeMux()
		mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/mcp2", http.StatusTemporaryRedirect)
		})
		h := mcpHandler()
		mux.HandleFunc("/mcp2", func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization")+" "+r.Header.Get("X-Api-Key"))
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		if err := connect(t, mcpadapter.Upstream{Name: "s", URL: srv.URL + "/mcp", Headers: headers, BearerToken: pat}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(seen) == 0 {
			t.Fatal("the redirect was not followed")
		}
		for _, s := range seen {
			if s != "Bearer "+pat+" "+key {
				t.Errorf("a request redirected on the same origin carried %q, want the configured headers", s)
			}
		}
	})
	t.Run("Downgrade", func(t *testing.T) {
		plain := newRecorder(t, mcpHandler())
		front := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, plain.srv.URL+"/mcp", http.StatusTemporaryRedirect)
		}))
		t.Cleanup(front.Close)
		err := connect(t, mcpadapter.Upstream{Name: "s", URL: front.URL + "/mcp", Headers: headers, HTTPClient: front.Client()})
		if err == nil {
			t.Fatal("connected through a redirect from https to http")
		}
		if got := plain.requests(); len(got) != 0 {
			t.Errorf("the plain-HTTP host was sent %q", got)
		}
	})
}

// fakeAS is an authorization server for the client-credentials grant
// (m2m / m2m-secret) whose every request is written down.
type fakeAS struct {
	*recorder
	methods  []string // token_endpoint_auth_methods_supported
	redirect string   // if set, /token answers 307 there
	mu       sync.Mutex
	tokens   map[string]string // access token → resource
	codes    map[string]string // authorization code → resource
}

func newFakeAS(t *testing.T, methods []string, redirect string) *fakeAS {
	a := &fakeAS{methods: methods, redirect: redirect, tokens: map[string]string{}, codes: map[string]string{}}
	mux := http.NewServeMux()
	a.recorder = newRecorder(t, mux)
	url := a.srv.URL
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": url, "authorization_endpoint": url + "/authorize", "token_endpoint": url + "/token",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"token_endpoint_auth_methods_supported": a.methods, "registration_endpoint": url + "/register",
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"client_id": "public", "token_endpoint_auth_method": "none"}`)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		code := "code-" + fmt.Sprint(time.Now().UnixNano())
		a.mu.Lock()
		a.codes[code] = q.Get("resource")
		a.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+q.Get("state"), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		if a.redirect != "" {
			http.Redirect(w, r, a.redirect, http.StatusTemporaryRedirect)
			return
		}
		r.ParseForm()
		if r.Form.Get("grant_type") == "authorization_code" {
			a.mu.Lock()
			resource, ok := a.codes[r.Form.Get("code")]
			delete(a.codes, r.Form.Get("code"))
			a.mu.Unlock()
			if ok {
				a.grant(w, resource)
				return
			}
		}
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.Form.Get("client_id"), r.Form.Get("client_secret")
		}
		if id != "m2m" || secret != "m2m-secret" || r.Form.Get("grant_type") != "client_credentials" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"invalid_client"}`)
			return
		}
		a.grant(w, r.Form.Get("resource"))
	})
	return a
}

func (a *fakeAS) grant(w http.ResponseWriter, resource string) {
	tok := "at-" + fmt.Sprint(time.Now().UnixNano())
	a.mu.Lock()
	a.tokens[tok] = resource
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
}

// resourceServer is an MCP server whose protected resource metadata names
// the authorization server at asURL and which takes the tokens as issued
// for it.
func resourceServer(t *testing.T, as *fakeAS, asURL string) string {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	resource := srv.URL + "/mcp"
	meta := srv.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: resource, AuthorizationServers: []string{asURL}}))
	verify := auth.RequireBearerToken(func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		as.mu.Lock()
		defer as.mu.Unlock()
		if as.tokens[tok] != resource {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}, &auth.RequireBearerTokenOptions{ResourceMetadataURL: meta})
	mux.Handle("/mcp", verify(mcpHandler()))
	return resource
}

func noUser(t *testing.T) mcpadapter.AuthorizationHandler {
	return func(context.Context, *mcpadapter.AuthorizationRequest) (*auth.AuthorizationResult, error) {
		t.Error("the user was sent to an authorization server the policy refuses")
		return nil, errors.New("no user")
	}
}

// TestOAuthCredentialsStayWithTheirIssuer: a resource naming an
// authorization server on another origin gets no client credentials sent
// there (no request at all reaches it) unless OAuth.Issuer pins that
// server; a pin refuses every other server.
func TestOAuthCredentialsStayWithTheirIssuer(t *testing.T) {
	cc := func() *mcpadapter.ClientCredentials {
		return &mcpadapter.ClientCredentials{ClientID: "m2m", ClientSecret: "m2m-secret"}
	}
	tests := []struct {
		name  string
		oauth func(asURL string) *mcpadapter.OAuth
		ok    bool
	}{
		{"ClientCredentialsForeign", func(string) *mcpadapter.OAuth { return &mcpadapter.OAuth{ClientCredentials: cc()} }, false},
		{"ClientCredentialsPinned", func(as string) *mcpadapter.OAuth {
			return &mcpadapter.OAuth{ClientCredentials: cc(), Issuer: as}
		}, true},
		{"ClientCredentialsPinnedElsewhere", func(string) *mcpadapter.OAuth {
			return &mcpadapter.OAuth{ClientCredentials: cc(), Issuer: "https://login.example.com"}
		}, false},
		{"ClientCredentialsAnyIssuer", func(string) *mcpadapter.OAuth {
			return &mcpadapter.OAuth{ClientCredentials: cc(), AnyIssuer: true}
		}, true},
		{"PreregisteredSecretForeign", func(string) *mcpadapter.OAuth {
			return &mcpadapter.OAuth{ClientID: "m2m", ClientSecret: "m2m-secret", Authorize: noUser(t)}
		}, false},
		// The MCP specification's case: a public client signs in at the
		// authorization server the resource names, wherever it is.
		{"PublicClientForeign", func(string) *mcpadapter.OAuth { return &mcpadapter.OAuth{Authorize: headless} }, true},
		{"PublicClientPinned", func(as string) *mcpadapter.OAuth { return &mcpadapter.OAuth{Authorize: headless, Issuer: as} }, true},
		{"PublicClientPinnedElsewhere", func(string) *mcpadapter.OAuth {
			return &mcpadapter.OAuth{Issuer: "https://login.example.com", Authorize: noUser(t)}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := newFakeAS(t, []string{"client_secret_basic"}, "")
			resource := resourceServer(t, as, as.srv.URL)
			err := connect(t, mcpadapter.Upstream{Name: "s", URL: resource, OAuth: tt.oauth(as.srv.URL)})
			if tt.ok {
				if err != nil {
					t.Fatalf("with the issuer pinned: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("connected through an authorization server the policy refuses")
			}
			if !errors.Is(err, mcpadapter.ErrOutbound) {
				t.Errorf("error %v is not ErrOutbound", err)
			}
			if got := as.requests(); len(got) != 0 {
				t.Errorf("the refused authorization server was sent %q", got)
			}
			if strings.Contains(err.Error(), "m2m-secret") {
				t.Errorf("the error shows the secret: %v", err)
			}
		})
	}
}

// TestOAuthTokenRedirectRefused: a token endpoint that answers 307 to
// another host does not get the secret re-sent there.
func TestOAuthTokenRedirectRefused(t *testing.T) {
	for _, method := range []string{"client_secret_post", "client_secret_basic"} {
		t.Run(method, func(t *testing.T) {
			thief := newRecorder(t, nil)
			as := newFakeAS(t, []string{method}, thief.srv.URL+"/token")
			resource := resourceServer(t, as, as.srv.URL)
			err := connect(t, mcpadapter.Upstream{Name: "s", URL: resource, OAuth: &mcpadapter.OAuth{
				ClientCredentials: &mcpadapter.ClientCredentials{ClientID: "m2m", ClientSecret: "m2m-secret"}, Issuer: as.srv.URL}})
			if err == nil {
				t.Fatal("connected through a redirected token request")
			}
			if !errors.Is(err, mcpadapter.ErrOutbound) {
				t.Errorf("error %v is not ErrOutbound", err)
			}
			if got := thief.requests(); len(got) != 0 {
				t.Errorf("the redirect's host was sent %q", got)
			}
		})
	}
}

// TestOAuthLegacyPlainHTTPRefused: a 2025-03-26 server (no resource
// metadata) whose metadata puts the token endpoint on plain HTTP at a
// non-loopback address is never sent a secret there, in either grant.
func TestOAuthLegacyPlainHTTPRefused(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		http.Error(w, "sign in", http.StatusUnauthorized)
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"issuer":%q,"authorization_endpoint":%q,"token_endpoint":"http://192.0.2.10/token","response_types_supported":["code"],"code_challenge_methods_supported":["S256"]}`,
			srv.URL, srv.URL+"/authorize")
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=c&state="+q.Get("state"), http.StatusFound)
	})
	// Whatever goes to 192.0.2.10 is written down here, not sent.
	var mu sync.Mutex
	var leaked []string
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Hostname() == "192.0.2.10" {
			body := ""
			if r.Body != nil {
				b, _ := io.ReadAll(r.Body)
				body = string(b)
			}
			mu.Lock()
			leaked = append(leaked, r.Header.Get("Authorization")+" "+body)
			mu.Unlock()
			return nil, errors.New("not sent")
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
	for name, o := range map[string]*mcpadapter.OAuth{
		"AuthorizationCode": {ClientID: "c", ClientSecret: "legacy-secret", Authorize: headless, HTTPClient: hc},
		"ClientCredentials": {ClientCredentials: &mcpadapter.ClientCredentials{ClientID: "c", ClientSecret: "legacy-secret"}, HTTPClient: hc},
	} {
		t.Run(name, func(t *testing.T) {
			mu.Lock()
			leaked = nil
			mu.Unlock()
			err := connect(t, mcpadapter.Upstream{Name: "s", URL: srv.URL + "/mcp", OAuth: o})
			if err == nil {
				t.Fatal("connected")
			}
			if !errors.Is(err, mcpadapter.ErrOutbound) {
				t.Errorf("error %v is not ErrOutbound", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(leaked) != 0 {
				t.Errorf("sent over plain HTTP to a non-loopback address: %q", leaked)
			}
		})
	}
}

// TestOAuthIssuerSwitchRefused: a resource that names its own
// authorization server while the client checks, then another one when
// go-sdk looks again, gets neither the user nor the client secret sent to
// the other.
func TestOAuthIssuerSwitchRefused(t *testing.T) {
	foreign := newFakeAS(t, []string{"client_secret_basic"}, "")
	own := newFakeAS(t, []string{"client_secret_basic"}, "")
	var mu sync.Mutex
	switched := false
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	resource := srv.URL + "/mcp"
	meta := srv.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		as := srv.URL
		if switched {
			as = foreign.srv.URL
		}
		mu.Unlock()
		auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{as}}).ServeHTTP(w, r)
	})
	// The resource's own origin serves its authorization server's metadata
	// (own's endpoints); once the client has read it, the resource switches.
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		switched = true
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": srv.URL, "authorization_endpoint": own.srv.URL + "/authorize", "token_endpoint": own.srv.URL + "/token",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
		})
	})
	verify := auth.RequireBearerToken(func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
		return nil, auth.ErrInvalidToken
	}, &auth.RequireBearerTokenOptions{ResourceMetadataURL: meta})
	mux.Handle("/mcp", verify(mcpHandler()))
	err := connect(t, mcpadapter.Upstream{Name: "s", URL: resource, OAuth: &mcpadapter.OAuth{ClientID: "m2m", ClientSecret: "m2m-secret", Authorize: noUser(t)}})
	if err == nil {
		t.Fatal("connected")
	}
	mu.Lock()
	defer mu.Unlock()
	if !switched {
		t.Fatal("the resource never switched: the test tests nothing")
	}
	for _, r := range foreign.requests() {
		if strings.HasPrefix(r, "POST") || strings.Contains(r, "Basic ") {
			t.Errorf("the authorization server switched to was sent %s", r)
		}
	}
}

// TestOAuthIssuerConfigErrors: an issuer in clear off loopback, or both
// a pin and AnyIssuer, are refused before any request.
func TestOAuthIssuerConfigErrors(t *testing.T) {
	hits := newRecorder(t, nil)
	for name, o := range map[string]*mcpadapter.OAuth{
		"PlainHTTPIssuer":    {Issuer: "http://login.example.com"},
		"IssuerAndAnyIssuer": {Issuer: "https://login.example.com", AnyIssuer: true},
	} {
		err := connect(t, mcpadapter.Upstream{Name: "s", URL: hits.srv.URL + "/mcp", OAuth: o})
		if err == nil || !strings.Contains(err.Error(), "OAuth") {
			t.Errorf("%s: Connect = %v, want a configuration error", name, err)
		}
	}
	if got := hits.requests(); len(got) != 0 {
		t.Errorf("a refused configuration sent %q", got)
	}
}
