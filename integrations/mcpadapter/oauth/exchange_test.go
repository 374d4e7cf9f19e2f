package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
)

// exchangeAS is an authorization server (and the resource's metadata, on
// the same origin) whose token endpoint answers RFC 8693 requests with
// answer; it counts the exchanges it was asked for.
type exchangeAS struct {
	srv      *httptest.Server
	resource string
	count    atomic.Int64
	mu       sync.Mutex
	answer   func(w http.ResponseWriter, r *http.Request)
	forms    []map[string][]string
}

func newExchangeAS(t *testing.T) *exchangeAS {
	t.Helper()
	as := &exchangeAS{}
	mux := http.NewServeMux()
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	iss := as.srv.URL
	as.resource = iss + "/mcp"
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"resource": as.resource, "authorization_servers": []string{iss}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"issuer": iss, "authorization_endpoint": iss + "/authorize",
			"token_endpoint": iss + "/token", "response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		as.count.Add(1)
		as.mu.Lock()
		as.forms = append(as.forms, r.PostForm)
		answer := as.answer
		as.mu.Unlock()
		answer(w, r)
	})
	// The default: a token naming the subject token's user, for an hour.
	as.answer = func(w http.ResponseWriter, r *http.Request) {
		if r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange" {
			http.Error(w, `{"error":"unsupported_grant_type"}`, 400)
			return
		}
		if id, secret, ok := r.BasicAuth(); !ok || id != "gw" || secret != "gw-secret" {
			w.WriteHeader(401)
			w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "up-" + r.PostForm.Get("subject_token"),
			"issued_token_type": oauth.TokenTypeAccessToken, "token_type": "Bearer", "expires_in": 3600})
	}
	return as
}

func (as *exchangeAS) set(f func(w http.ResponseWriter, r *http.Request)) {
	as.mu.Lock()
	as.answer = f
	as.mu.Unlock()
}

func (as *exchangeAS) handler(t *testing.T, x *oauth.TokenExchange) *oauth.Handler {
	t.Helper()
	if x == nil {
		x = &oauth.TokenExchange{ClientID: "gw", ClientSecret: "gw-secret"}
	}
	h, err := oauth.NewHandler("up", as.resource, &oauth.Config{PerCaller: true, TokenExchange: x}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// callAs returns a call context of subject with the inbound token raw.
func callAs(subject, raw string) context.Context {
	info := oauth.WithSubjectToken(&auth.TokenInfo{UserID: subject, Expiration: time.Now().Add(time.Hour)}, raw)
	return caller.WithIdentity(context.Background(), &caller.Identity{Subject: subject, Extra: info.Extra})
}

// bearer is the token a caller's handler would send.
func bearer(t *testing.T, ctx context.Context, h *oauth.Handler, subject string) (string, error) {
	t.Helper()
	c, err := h.ForCaller(ctx, subject)
	if err != nil {
		return "", err
	}
	ts, err := c.TokenSource(ctx)
	if err != nil {
		return "", err
	}
	tok, err := ts.Token()
	if err != nil {
		return "", err
	}
	return tok.AccessToken, nil
}

// TestTokenExchange: a caller's inbound token is exchanged (RFC 8693
// form: grant, subject token and its type, requested type, resource,
// client authentication) for the AS's token, which is what is sent; N
// calls make one exchange until the cached one expires; the exchange is
// keyed by the inbound token, and the inbound token is never what is sent.
func TestTokenExchange(t *testing.T) {
	as := newExchangeAS(t)
	h := as.handler(t, nil)
	for i := range 5 {
		got, err := bearer(t, callAs("alice", "in-alice-1"), h, "alice")
		if err != nil || got != "up-in-alice-1" {
			t.Fatalf("call %d: %q, %v", i, got, err)
		}
	}
	if n := as.count.Load(); n != 1 || h.Exchanges() != 1 {
		t.Errorf("5 calls made %d exchanges (handler counts %d), want 1", n, h.Exchanges())
	}
	f := as.forms[0]
	for k, want := range map[string]string{"grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "subject_token": "in-alice-1",
		"subject_token_type": oauth.TokenTypeAccessToken, "requested_token_type": oauth.TokenTypeAccessToken, "resource": as.resource} {
		if got := strings.Join(f[k], ","); got != want {
			t.Errorf("form %s = %q, want %q", k, got, want)
		}
	}
	if _, ok := f["client_secret"]; ok {
		t.Error("client_secret_basic also sent the secret in the form")
	}
	// A new inbound token of alice's is exchanged anew.
	if got, err := bearer(t, callAs("alice", "in-alice-2"), h, "alice"); err != nil || got != "up-in-alice-2" {
		t.Fatalf("alice's new token: %q, %v", got, err)
	}
	if n := as.count.Load(); n != 2 {
		t.Errorf("exchanges after a new inbound token = %d, want 2", n)
	}
	// No inbound token, or an anonymous caller: no exchange, a typed error.
	for name, ctx := range map[string]context.Context{
		"no token": caller.WithIdentity(context.Background(), &caller.Identity{Subject: "carol"}),
		"anonymous": caller.WithIdentity(context.Background(), &caller.Identity{Subject: "anonymous:1", Anonymous: true,
			Extra: oauth.WithSubjectToken(&auth.TokenInfo{}, "in-x").Extra}),
	} {
		_, err := bearer(t, ctx, h, caller.IdentityFrom(ctx).Subject)
		var se *oauth.SignInError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v, want a *SignInError", name, err)
		}
	}
	if n := as.count.Load(); n != 2 {
		t.Errorf("exchanges after callers without a token = %d, want 2", n)
	}
}

// TestTokenExchangeRefusals: every bad answer of the AS is a typed
// *ExchangeError (in a *SignInError), bounded, printable, and without the
// subject token, the secret or anything token-like; nothing is cached.
func TestTokenExchangeRefusals(t *testing.T) {
	as := newExchangeAS(t)
	h := as.handler(t, nil)
	huge := strings.Repeat("x", 1<<20)
	echo := func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":"invalid_grant","error_description":"token %s is revoked; secret gw-secret; see \u0007 eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlc2lnbmF0dXJl"}`, r.PostForm.Get("subject_token"))
	}
	for _, c := range []struct {
		name     string
		answer   func(w http.ResponseWriter, r *http.Request)
		wantCode string
	}{
		{"refused", echo, "invalid_grant"},
		{"huge error", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"error":"%s","error_description":"%s"}`, huge, huge)
		}, "invalid_response"},
		{"huge description", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"error":"access_denied","error_description":"%s"}`, strings.Repeat("no ", 10000))
		}, "access_denied"},
		{"malformed JSON", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(400)
			w.Write([]byte(`{"error":"invalid_gr`))
		}, "http_400"},
		{"HTML", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(502)
			w.Write([]byte(`<html><body>Bad gateway in-alice-secret</body></html>`))
		}, "http_502"},
		{"HTML 200", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html>{"access_token":"x"}</html>`))
		}, "invalid_response"},
		{"wrong issued_token_type", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"access_token":"an-id-token","issued_token_type":"urn:ietf:params:oauth:token-type:id_token","token_type":"N_A","expires_in":60}`))
		}, "invalid_response"},
		{"N_A token_type", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"access_token":"x","token_type":"N_A","expires_in":60}`))
		}, "invalid_response"},
		{"no access_token", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"token_type":"Bearer"}`))
		}, "invalid_response"},
		{"inbound token handed back", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":60}`, r.PostForm.Get("subject_token"))
		}, "invalid_response"},
		{"bad expires_in", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"access_token":"x","token_type":"Bearer","expires_in":-5}`))
		}, "invalid_response"},
	} {
		t.Run(c.name, func(t *testing.T) {
			as.set(c.answer)
			before := as.count.Load()
			for range 2 {
				_, err := bearer(t, callAs("alice", "in-alice-secret"), h, "alice")
				var xe *oauth.ExchangeError
				var se *oauth.SignInError
				if !errors.As(err, &xe) || !errors.As(err, &se) || !errors.Is(err, oauth.ErrExchangeRefused) {
					t.Fatalf("error %v (%T), want an *ExchangeError in a *SignInError", err, err)
				}
				if xe.Code != c.wantCode {
					t.Errorf("code %q, want %q", xe.Code, c.wantCode)
				}
				msg := err.Error()
				if len(msg) > 600 || len(xe.Code) > 64 || len(xe.Description) > 210 {
					t.Errorf("error of %d bytes (code %d, description %d): not bounded", len(msg), len(xe.Code), len(xe.Description))
				}
				for _, secret := range []string{"in-alice-secret", "gw-secret", "eyJ", "\a", "<html"} {
					if strings.Contains(msg, secret) {
						t.Errorf("error %q carries %q", msg, secret)
					}
				}
				if !strings.Contains(msg, `"up" refused this user`) {
					t.Errorf("error %q does not say the upstream refused this user", msg)
				}
			}
			if n := as.count.Load() - before; n != 2 {
				t.Errorf("2 refused calls made %d exchanges, want 2 (a refusal is not cached)", n)
			}
		})
	}
}

// TestTokenExchangeExpiry: an exchanged token is cached until its expiry
// less the skew (capped at half its lifetime), never past the inbound
// token's expiry; an answer without expires_in is not cached.
func TestTokenExchangeExpiry(t *testing.T) {
	as := newExchangeAS(t)
	life := 2
	as.set(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		m := map[string]any{"access_token": fmt.Sprintf("up-%d", as.count.Load()), "token_type": "bearer"}
		if life > 0 {
			m["expires_in"] = life
		}
		json.NewEncoder(w).Encode(m)
	})
	h := as.handler(t, &oauth.TokenExchange{})
	ctx := callAs("alice", "in-a")
	first, err := bearer(t, ctx, h, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := bearer(t, ctx, h, "alice"); again != first || as.count.Load() != 1 {
		t.Fatalf("second call within the lifetime: %q after %q, %d exchanges", again, first, as.count.Load())
	}
	time.Sleep(1100 * time.Millisecond) // past half the 2s lifetime (the skew's cap)
	if next, _ := bearer(t, ctx, h, "alice"); next == first || as.count.Load() != 2 {
		t.Fatalf("call past the cached expiry: %q (first %q), %d exchanges, want a new one", next, first, as.count.Load())
	}
	// Bounded by the inbound token's expiry.
	life = 3600
	info := oauth.WithSubjectToken(&auth.TokenInfo{UserID: "bob", Expiration: time.Now().Add(time.Second)}, "in-b")
	bctx := caller.WithIdentity(context.Background(), &caller.Identity{Subject: "bob", Extra: info.Extra})
	bearer(t, bctx, h, "bob")
	n := as.count.Load()
	time.Sleep(1100 * time.Millisecond)
	bearer(t, bctx, h, "bob")
	if as.count.Load() != n+1 {
		t.Errorf("an exchange outlived its inbound token's expiry")
	}
	// No expires_in: one exchange per call.
	life = 0
	n = as.count.Load()
	for range 3 {
		if _, err := bearer(t, callAs("carol", "in-c"), h, "carol"); err != nil {
			t.Fatal(err)
		}
	}
	if got := as.count.Load() - n; got != 3 {
		t.Errorf("3 calls with no expires_in made %d exchanges, want 3", got)
	}
}

// TestTokenExchangeConcurrent: alice and bob calling in parallel (-race)
// each get their own exchange, never the other's, with one exchange each.
func TestTokenExchangeConcurrent(t *testing.T) {
	as := newExchangeAS(t)
	slow := make(chan struct{})
	def := as.answer
	as.set(func(w http.ResponseWriter, r *http.Request) {
		<-slow // every caller waits on the first exchange
		def(w, r)
	})
	h := as.handler(t, nil)
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for i := range 50 {
		who := []string{"alice", "bob"}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := bearer(t, callAs(who, "in-"+who), h, who)
			if err != nil || got != "up-in-"+who {
				errs <- fmt.Sprintf("%s got %q, %v", who, got, err)
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	close(slow)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := as.count.Load(); n != 2 {
		t.Errorf("50 concurrent calls of two subjects made %d exchanges, want 2", n)
	}
}

// TestTokenExchangeConfig: bad configurations are refused at NewHandler,
// and the subject token is redacted however it is printed.
func TestTokenExchangeConfig(t *testing.T) {
	for name, cfg := range map[string]*oauth.Config{
		"without PerCaller":   {TokenExchange: &oauth.TokenExchange{}},
		"saml2 subject token": {PerCaller: true, TokenExchange: &oauth.TokenExchange{SubjectTokenType: "urn:ietf:params:oauth:token-type:saml2"}},
		"bad auth method":     {PerCaller: true, TokenExchange: &oauth.TokenExchange{ClientID: "a", ClientSecret: "b", AuthMethod: "private_key_jwt"}},
		"secret without id":   {PerCaller: true, TokenExchange: &oauth.TokenExchange{ClientSecret: "b"}},
		"plain-HTTP token":    {PerCaller: true, TokenExchange: &oauth.TokenExchange{TokenURL: "http://as.example/token"}},
		"with DPoP":           {PerCaller: true, TokenExchange: &oauth.TokenExchange{}, DPoP: &oauth.DPoP{}},
		"with Enterprise":     {PerCaller: true, TokenExchange: &oauth.TokenExchange{}, Enterprise: &oauth.Enterprise{}},
	} {
		if _, err := oauth.NewHandler("up", "https://up.example/mcp", cfg, nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := oauth.NewHandler("up", "https://up.example/mcp", &oauth.Config{PerCaller: true,
		TokenExchange: &oauth.TokenExchange{}, ClientCredentials: &oauth.ClientCredentials{ClientID: "gw", ClientSecret: "s"}}, nil); err != nil {
		t.Errorf("TokenExchange with ClientCredentials for the shared identity: %v", err)
	}
	info := oauth.WithSubjectToken(&auth.TokenInfo{UserID: "alice"}, "raw-inbound-token")
	b, _ := json.Marshal(info)
	for _, s := range []string{fmt.Sprint(info.Extra), fmt.Sprintf("%+v %#v", info.Extra, info.Extra), string(b)} {
		if strings.Contains(s, "raw-inbound-token") {
			t.Errorf("the subject token is printed: %s", s)
		}
	}
}

// TestTokenExchangeIssuerPolicy: the subject token is a credential, so it
// is not sent to an authorization server on another origin than the
// resource's unless Issuer pins it.
func TestTokenExchangeIssuerPolicy(t *testing.T) {
	as := newExchangeAS(t)
	// A resource whose metadata names as's server, on another origin.
	mux := http.NewServeMux()
	res := httptest.NewServer(mux)
	defer res.Close()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"resource": res.URL + "/mcp", "authorization_servers": []string{as.srv.URL}})
	})
	h, err := oauth.NewHandler("up", res.URL+"/mcp", &oauth.Config{PerCaller: true, TokenExchange: &oauth.TokenExchange{ClientID: "gw", ClientSecret: "gw-secret"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bearer(t, callAs("alice", "in-a"), h, "alice"); err == nil || as.count.Load() != 0 {
		t.Fatalf("the subject token went to another origin's AS: %v, %d exchanges", err, as.count.Load())
	}
	h, err = oauth.NewHandler("up", res.URL+"/mcp", &oauth.Config{PerCaller: true, Issuer: as.srv.URL,
		TokenExchange: &oauth.TokenExchange{ClientID: "gw", ClientSecret: "gw-secret"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := bearer(t, callAs("alice", "in-a"), h, "alice"); err != nil || got != "up-in-a" {
		t.Fatalf("with the issuer pinned: %q, %v", got, err)
	}
}

// TestTokenExchangeUpstream401: a 401 from the server to an exchanged
// token fails the call with the typed error and drops the caller's cached
// exchange (only the caller's): the next call exchanges anew.
func TestTokenExchangeUpstream401(t *testing.T) {
	as := newExchangeAS(t)
	h := as.handler(t, nil)
	actx, bctx := callAs("alice", "in-a"), callAs("bob", "in-b")
	bearer(t, actx, h, "alice")
	bearer(t, bctx, h, "bob")
	c, err := h.ForCaller(actx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("POST", as.resource, nil)
	resp := &http.Response{StatusCode: 401, Header: http.Header{}, Body: http.NoBody}
	err = c.Authorize(actx, req, resp)
	var xe *oauth.ExchangeError
	if !errors.As(err, &xe) || xe.Code != "upstream_refused" {
		t.Fatalf("Authorize after a 401: %v, want an *ExchangeError upstream_refused", err)
	}
	if _, err := c.TokenSource(actx); err == nil {
		t.Error("the refused exchange is still sent")
	}
	n := as.count.Load()
	bearer(t, bctx, h, "bob")
	if as.count.Load() != n {
		t.Error("alice's 401 dropped bob's cached exchange")
	}
	if got, err := bearer(t, actx, h, "alice"); err != nil || got != "up-in-a" || as.count.Load() != n+1 {
		t.Errorf("alice after the 401: %q, %v, %d exchanges (want one more)", got, err, as.count.Load()-n)
	}
}
