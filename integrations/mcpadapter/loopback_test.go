package mcpadapter_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

func freeLoopbackURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprintf("http://%s/callback", ln.Addr())
}

// TestLoopbackSignIn signs in through the loopback handler: the "browser"
// (open) follows the authorization server's redirect to the loopback
// listener, which hands the code back.
func TestLoopbackSignIn(t *testing.T) {
	a := newAuthServer(t)
	var opened []string
	open := func(u string) error {
		opened = append(opened, u)
		resp, err := http.Get(u) // follows the redirect to the listener
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	var logs, ledger syncBuffer
	e, err := newOAuthEnv(t, a, &mcpadapter.OAuth{Authorize: mcpadapter.Loopback(open), RedirectURL: freeLoopbackURL(t)}, &logs, &ledger)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.call(t, "read_tool"); err != nil {
		t.Fatal(err)
	}
	if len(opened) != 1 || !strings.HasPrefix(opened[0], a.url+"/authorize?") {
		t.Errorf("opened %v", opened)
	}
}

func TestLoopbackRefusals(t *testing.T) {
	ctx := context.Background()
	never := func(string) error { t.Error("opened the URL of a refused request"); return nil }
	for _, redirect := range []string{"https://127.0.0.1:9/cb", "http://example.com:80/cb", "http://127.0.0.1/cb", "::bad"} {
		if _, err := mcpadapter.Loopback(never)(ctx, &mcpadapter.AuthorizationRequest{URL: "http://as/authorize", RedirectURL: redirect}); err == nil {
			t.Errorf("redirect URL %q accepted", redirect)
		}
	}
	// The user (or the server) refuses: the error says so, briefly.
	redirect := freeLoopbackURL(t)
	deny := func(string) error {
		resp, err := http.Get(redirect + "?error=access_denied&error_description=" + strings.Repeat("x", 5000))
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	_, err := mcpadapter.Loopback(deny)(ctx, &mcpadapter.AuthorizationRequest{URL: "http://as/authorize", RedirectURL: redirect})
	if err == nil || !strings.Contains(err.Error(), "access_denied") || len(err.Error()) > 1000 {
		t.Errorf("refused authorization: %v", err)
	}
	// Nobody comes back: ctx ends the wait.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := mcpadapter.Loopback(func(string) error { return nil })(cctx, &mcpadapter.AuthorizationRequest{URL: "http://as/authorize", RedirectURL: freeLoopbackURL(t)}); err == nil {
		t.Error("returned without a redirect")
	}
}

// TestOAuthLegacyIssuerOnAnotherOrigin: a server without resource metadata
// whose root metadata names an authorization server on another origin is
// refused before the user is sent anywhere (the 2025-03-26 fallback trusts
// only the server's own origin).
func TestOAuthLegacyIssuerOnAnotherOrigin(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		http.Error(w, "sign in", http.StatusUnauthorized)
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"issuer":"https://evil.example","authorization_endpoint":"https://evil.example/authorize","token_endpoint":"https://evil.example/token","response_types_supported":["code"],"code_challenge_methods_supported":["S256"]}`)
	})
	asked := false
	o := &mcpadapter.OAuth{Authorize: func(context.Context, *mcpadapter.AuthorizationRequest) (*auth.AuthorizationResult, error) {
		asked = true
		return nil, fmt.Errorf("no")
	}}
	var logs, ledger syncBuffer
	if _, err := newOAuthEnv(t, &authServer{url: srv.URL}, o, &logs, &ledger); err == nil {
		t.Fatal("connected through an authorization server on another origin")
	}
	if asked {
		t.Error("the user was sent to an authorization server on another origin")
	}
}
