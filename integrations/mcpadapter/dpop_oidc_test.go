package mcpadapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
)

// TestOAuthDPoPOIDCProvider: against oidc-provider (npm), a real
// authorization server that checks DPoP proofs and demands a nonce at its
// token endpoint, the client-credentials grant with OAuth.DPoP obtains a
// JWT access token bound to the client's key (cnf.jkt), which the client
// presents to the MCP server with the DPoP scheme and a proof of each
// request made with that key.
func TestOAuthDPoPOIDCProvider(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	resource := srv.URL + "/mcp"

	var as struct {
		Issuer string         `json:"issuer"`
		JWK    map[string]any `json:"jwk"`
	}
	if err := json.Unmarshal(testpeers.OIDCProvider(t, filepath.Join("testdata", "oidc-provider-dpop.mjs"), resource), &as); err != nil || as.Issuer == "" {
		t.Fatalf("oidc-provider did not print its issuer: %v", err)
	}
	signer, _, err := jwkPublic(as.JWK)
	if err != nil {
		t.Fatal(err)
	}

	// The MCP server: a DPoP-bound JWT from that issuer for this
	// resource, and a valid proof of the request by the bound key.
	check := &dpopServer{jtis: map[string]bool{}}
	var mu sync.Mutex
	var verified int
	var failures []string
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": resource, "authorization_servers": []string{as.Issuer}})
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return protectedServer() }, nil)
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse := func(why string) {
			mu.Lock()
			failures = append(failures, why)
			mu.Unlock()
			w.Header().Set("WWW-Authenticate", `DPoP resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, why, http.StatusUnauthorized)
		}
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if tok == "" {
			w.Header().Set("WWW-Authenticate", `DPoP resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		if scheme != "DPoP" {
			refuse("token presented with the " + scheme + " scheme")
			return
		}
		var claims struct {
			jwt.RegisteredClaims
			Cnf struct {
				JKT string `json:"jkt"`
			} `json:"cnf"`
		}
		if _, err := jwt.ParseWithClaims(tok, &claims, func(*jwt.Token) (any, error) { return signer, nil },
			jwt.WithValidMethods([]string{"ES256"}), jwt.WithIssuer(as.Issuer), jwt.WithAudience(resource)); err != nil {
			refuse("access token: " + err.Error())
			return
		}
		check.mu.Lock()
		jkt, _, err := check.check(r.Header.Get("DPoP"), r.Method, resource, tok)
		check.mu.Unlock()
		if err != nil || claims.Cnf.JKT == "" || jkt != claims.Cnf.JKT {
			refuse("proof: " + errString(err) + " (key " + jkt + ", token bound to " + claims.Cnf.JKT + ")")
			return
		}
		mu.Lock()
		verified++
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))

	exec, err := connectOIDC(t, resource, &mcpadapter.OAuth{Issuer: as.Issuer, DPoP: &mcpadapter.DPoP{},
		ClientCredentials: &mcpadapter.ClientCredentials{ClientID: "m2m", ClientSecret: "m2m-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := exec.Call(context.Background(), "read_tool", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text() != "read_tool done" {
		t.Errorf("read_tool answered %q", res.Text())
	}
	mu.Lock()
	defer mu.Unlock()
	for _, f := range failures {
		t.Error(f)
	}
	if verified < 2 {
		t.Errorf("%d MCP requests with a bound token and a valid proof, want every one (at least 2)", verified)
	}
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}
