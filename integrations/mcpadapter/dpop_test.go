package mcpadapter_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// dpopServer is an authorization server (client credentials) and the MCP
// server it protects, both checking DPoP proofs as RFC 9449 has it: a
// well-formed proof signed by the key in its own header, of this request's
// method and URL, fresh, never replayed, carrying the nonce the server
// demanded, and at the MCP server the token's hash and the key the token
// is bound to.
type dpopServer struct {
	t   *testing.T
	srv *httptest.Server
	url string

	unbound  bool // the authorization server ignores proofs and issues bearer tokens
	asNonce  bool // the token endpoint demands a nonce
	rsNonce  bool // the MCP endpoint demands a nonce
	rotating bool // the MCP endpoint demands a new nonce on every request

	mu           sync.Mutex
	bound        map[string]string // access token → thumbprint of its key ("" for a bearer token)
	jtis         map[string]bool
	tokenProofs  int // token requests with a valid proof
	mcpProofs    int // MCP requests with a valid proof
	challenges   int // use_dpop_nonce answers
	bearerAtMCP  int // MCP requests presenting a bearer token
	failures     []string
	nonceCounter int
}

func newDPoPServer(t *testing.T, configure func(*dpopServer)) *dpopServer {
	d := &dpopServer{t: t, bound: map[string]string{}, jtis: map[string]bool{}}
	if configure != nil {
		configure(d)
	}
	mux := http.NewServeMux()
	d.srv = httptest.NewServer(mux)
	t.Cleanup(d.srv.Close)
	d.url = d.srv.URL
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": d.url + "/mcp", "authorization_servers": []string{d.url},
			"dpop_bound_access_tokens_required": !d.unbound})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"issuer": d.url, "authorization_endpoint": d.url + "/authorize",
			"token_endpoint": d.url + "/token", "response_types_supported": []string{"code"},
			"grant_types_supported": []string{"client_credentials"}, "code_challenge_methods_supported": []string{"S256"},
			"dpop_signing_alg_values_supported": []string{"ES256", "RS256"}})
	})
	mux.HandleFunc("/token", d.token)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return protectedServer() }, nil)
	mux.Handle("/mcp", d.protect(h))
	return d
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (d *dpopServer) fail(format string, args ...any) {
	d.failures = append(d.failures, fmt.Sprintf(format, args...))
}

// check verifies a proof; d.mu is held. It returns the key's thumbprint
// and the proof's nonce.
func (d *dpopServer) check(proof, method, url, accessToken string) (jkt, nonce string, err error) {
	var claims jwt.MapClaims
	var pub crypto.PublicKey
	tok, err := jwt.ParseWithClaims(proof, &claims, func(t *jwt.Token) (any, error) {
		if t.Header["typ"] != "dpop+jwt" {
			return nil, errors.New("typ is not dpop+jwt")
		}
		jwk, ok := t.Header["jwk"].(map[string]any)
		if !ok {
			return nil, errors.New("no jwk")
		}
		if _, private := jwk["d"]; private {
			return nil, errors.New("the jwk carries the private key")
		}
		pub, jkt, err = jwkPublic(jwk)
		return pub, err
	}, jwt.WithValidMethods([]string{"ES256", "RS256"}), jwt.WithIssuedAt())
	if err != nil || !tok.Valid {
		return "", "", fmt.Errorf("bad proof: %v", err)
	}
	if claims["htm"] != method || claims["htu"] != url {
		return "", "", fmt.Errorf("proof of %v %v, not %s %s", claims["htm"], claims["htu"], method, url)
	}
	iat, _ := claims["iat"].(float64)
	if d := time.Since(time.Unix(int64(iat), 0)); d > time.Minute || d < -time.Minute {
		return "", "", fmt.Errorf("stale proof (%v)", d)
	}
	jti, _ := claims["jti"].(string)
	if jti == "" || d.jtis[jti] {
		return "", "", fmt.Errorf("replayed or missing jti %q", jti)
	}
	d.jtis[jti] = true
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		if claims["ath"] != base64.RawURLEncoding.EncodeToString(sum[:]) {
			return "", "", errors.New("ath does not match the token")
		}
	} else if _, ok := claims["ath"]; ok {
		return "", "", errors.New("ath in a token request")
	}
	nonce, _ = claims["nonce"].(string)
	return jkt, nonce, nil
}

// jwkPublic decodes a public JWK and computes its RFC 7638 thumbprint.
func jwkPublic(j map[string]any) (crypto.PublicKey, string, error) {
	s := func(k string) string { v, _ := j[k].(string); return v }
	dec := func(k string) *big.Int {
		b, _ := base64.RawURLEncoding.DecodeString(s(k))
		return new(big.Int).SetBytes(b)
	}
	var pub crypto.PublicKey
	var canon string
	switch s("kty") {
	case "EC":
		if s("crv") != "P-256" {
			return nil, "", errors.New("unsupported curve")
		}
		pub = &ecdsa.PublicKey{Curve: elliptic.P256(), X: dec("x"), Y: dec("y")}
		canon = fmt.Sprintf(`{"crv":%q,"kty":"EC","x":%q,"y":%q}`, s("crv"), s("x"), s("y"))
	case "RSA":
		pub = &rsa.PublicKey{N: dec("n"), E: int(dec("e").Int64())}
		canon = fmt.Sprintf(`{"e":%q,"kty":"RSA","n":%q}`, s("e"), s("n"))
	default:
		return nil, "", errors.New("unsupported kty")
	}
	sum := sha256.Sum256([]byte(canon))
	return pub, base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

func (d *dpopServer) newNonce() string {
	d.nonceCounter++
	return fmt.Sprintf("nonce-%d", d.nonceCounter)
}

func (d *dpopServer) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	d.mu.Lock()
	defer d.mu.Unlock()
	if id, secret, _ := r.BasicAuth(); r.Form.Get("grant_type") != "client_credentials" || id != "m2m" || secret != "m2m-secret" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client"})
		return
	}
	at := "at-" + rand.Text()
	if d.unbound {
		d.bound[at] = ""
		writeJSON(w, http.StatusOK, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600})
		return
	}
	if len(r.Header.Values("DPoP")) != 1 {
		d.fail("token request with %d DPoP headers", len(r.Header.Values("DPoP")))
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_dpop_proof"})
		return
	}
	jkt, nonce, err := d.check(r.Header.Get("DPoP"), http.MethodPost, d.url+"/token", "")
	if err != nil {
		d.fail("token request: %v", err)
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_dpop_proof"})
		return
	}
	d.tokenProofs++
	if d.asNonce && nonce != "as-nonce" {
		d.challenges++
		w.Header().Set("DPoP-Nonce", "as-nonce")
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "use_dpop_nonce"})
		return
	}
	d.bound[at] = jkt
	writeJSON(w, http.StatusOK, map[string]any{"access_token": at, "token_type": "DPoP", "expires_in": 3600})
}

func (d *dpopServer) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse := func(params string) {
			w.Header().Set("WWW-Authenticate", `DPoP `+params+`resource_metadata="`+d.url+`/.well-known/oauth-protected-resource/mcp"`)
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "unauthorized"})
		}
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		ok, params := d.admit(r, scheme, tok, w)
		if !ok {
			refuse(params)
			return
		}
		next.ServeHTTP(w, r) // not under d.mu: a GET stream stays open
	})
}

// admit checks an MCP request's credentials, setting a demanded nonce on
// w; it returns the challenge's parameters when it refuses.
func (d *dpopServer) admit(r *http.Request, scheme, tok string, w http.ResponseWriter) (bool, string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	jkt, known := d.bound[tok]
	switch {
	case !known:
		return false, ""
	case jkt == "":
		if scheme != "Bearer" {
			d.fail("a bearer token presented as %q", scheme)
		}
		d.bearerAtMCP++
		return true, ""
	case !strings.EqualFold(scheme, "DPoP"):
		d.fail("a DPoP-bound token presented with the %q scheme", scheme)
		return false, `error="invalid_token", `
	}
	got, nonce, err := d.check(r.Header.Get("DPoP"), r.Method, d.url+"/mcp", tok)
	if err != nil || got != jkt {
		d.fail("MCP %s: %v (key %s, token bound to %s)", r.Method, err, got, jkt)
		return false, `error="invalid_dpop_proof", `
	}
	d.mcpProofs++
	if d.rotating || d.rsNonce && nonce != "rs-nonce" {
		d.challenges++
		n := "rs-nonce"
		if d.rotating {
			n = d.newNonce()
		}
		w.Header().Set("DPoP-Nonce", n)
		return false, `error="use_dpop_nonce", `
	}
	return true, ""
}

func (d *dpopServer) stats() (tokenProofs, mcpProofs, challenges, bearer int, failures []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.tokenProofs, d.mcpProofs, d.challenges, d.bearerAtMCP, append([]string(nil), d.failures...)
}

func connectDPoP(t *testing.T, d *dpopServer, dp *mcpadapter.DPoP) (*adapter.Executor, error) {
	t.Helper()
	return connectOIDC(t, d.url+"/mcp", &mcpadapter.OAuth{DPoP: dp, ClientCredentials: &mcpadapter.ClientCredentials{ClientID: "m2m", ClientSecret: "m2m-secret"}})
}

// connectOIDC imports from the server at url, authorized by o.
func connectOIDC(t *testing.T, url string, o *mcpadapter.OAuth) (*adapter.Executor, error) {
	t.Helper()
	reg := registry.New()
	exec := adapter.NewExecutor(reg, nil)
	m := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Executor: exec, Strict: true, ConnectTimeout: 10 * time.Second})
	t.Cleanup(func() {
		m.Close()
		exec.Close()
	})
	err := m.Connect(context.Background(), mcpadapter.Upstream{Name: "dpop", URL: url, Trust: true, OAuth: o})
	return exec, err
}

// TestOAuthDPoP: with OAuth.DPoP every token request and every request to
// the MCP server carries a fresh proof of that request signed by one key
// (ECDSA made for the server, or the RSA key given), the bound token goes
// with the DPoP scheme, and a nonce either server demands is sent on one
// retry and after; a token the authorization server does not bind stays a
// bearer token.
func TestOAuthDPoP(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		configure func(*dpopServer)
		key       crypto.Signer
		nonces    int
	}{
		{"Bound", nil, nil, 0},
		{"RSAKey", nil, rsaKey, 0},
		{"Nonces", func(d *dpopServer) { d.asNonce, d.rsNonce = true, true }, nil, 2},
		{"Unbound", func(d *dpopServer) { d.unbound = true }, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDPoPServer(t, tc.configure)
			exec, err := connectDPoP(t, d, &mcpadapter.DPoP{Key: tc.key})
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				res, err := exec.Call(context.Background(), "read_tool", json.RawMessage(`{}`))
				if err != nil {
					t.Fatal(err)
				}
				if res.Text() != "read_tool done" {
					t.Errorf("read_tool answered %q", res.Text())
				}
			}
			tokenProofs, mcpProofs, challenges, bearer, failures := d.stats()
			for _, f := range failures {
				t.Error(f)
			}
			if challenges != tc.nonces {
				t.Errorf("%d use_dpop_nonce challenges, want %d (each nonce is kept once learnt)", challenges, tc.nonces)
			}
			if d.unbound {
				if mcpProofs != 0 || bearer == 0 {
					t.Errorf("an unbound token: %d DPoP requests, %d bearer ones; want bearer only", mcpProofs, bearer)
				}
				return
			}
			if tokenProofs == 0 || mcpProofs < 3 || bearer != 0 {
				t.Errorf("%d token requests and %d MCP requests with proofs, %d bearer; want proofs everywhere", tokenProofs, mcpProofs, bearer)
			}
		})
	}
}

// TestOAuthDPoPHostile: a server that demands a new nonce on every request
// gets one retry per request, not a loop, and Connect fails; a key DPoP
// cannot sign with is a configuration error.
func TestOAuthDPoPHostile(t *testing.T) {
	t.Run("RotatingNonce", func(t *testing.T) {
		d := newDPoPServer(t, func(d *dpopServer) { d.rotating = true })
		start := time.Now()
		if _, err := connectDPoP(t, d, &mcpadapter.DPoP{}); err == nil {
			t.Fatal("connected to a server that never accepts a proof")
		}
		_, mcpProofs, challenges, _, _ := d.stats()
		if challenges > 20 || mcpProofs > 20 {
			t.Errorf("%d proofs for %d nonce challenges: the client loops", mcpProofs, challenges)
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("giving up took %v", time.Since(start))
		}
	})
	t.Run("UnsupportedKey", func(t *testing.T) {
		_, ed, _ := ed25519.GenerateKey(rand.Reader)
		d := newDPoPServer(t, nil)
		if _, err := connectDPoP(t, d, &mcpadapter.DPoP{Key: ed}); err == nil || !strings.Contains(err.Error(), "DPoP") {
			t.Errorf("Connect with an Ed25519 key = %v, want a DPoP configuration error", err)
		}
	})
}
