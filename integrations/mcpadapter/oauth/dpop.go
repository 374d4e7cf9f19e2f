package oauth

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"
)

// DPoP configures sender-constrained access tokens (RFC 9449, SEP-1932):
// every token request and every request to the server carries a proof,
// signed with Key, of the request's method and URL, so that a stolen token
// is useless without the key. A token the authorization server binds to
// the key (token_type DPoP) is presented with the DPoP scheme; a server
// that ignores the proof issues a bearer token, presented as such. Nonces
// the authorization server or the MCP server demand (use_dpop_nonce) are
// sent on a retry and on the requests after it.
type DPoP struct {
	// Key signs the proofs: an *ecdsa.PrivateKey (P-256, P-384 or P-521:
	// ES256, ES384, ES512) or an *rsa.PrivateKey (RS256). Nil means an
	// ECDSA P-256 key made for the server when it is added: tokens bound to
	// it do not outlive the process, even in a persistent TokenStore (a
	// stored one is refused after a restart, and the grant starts over).
	Key crypto.Signer
}

// dpopSigner makes the proofs of one server's OAuth handler.
type dpopSigner struct {
	key    crypto.Signer
	method jwt.SigningMethod
	jwk    map[string]any

	mu     sync.Mutex
	nonces map[string]string // origin → the last DPoP-Nonce it sent
	bound  string            // the access token last handed out with token_type DPoP
}

func newDPoPSigner(d *DPoP) (*dpopSigner, error) {
	key := d.Key
	if key == nil {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		key = k
	}
	s := &dpopSigner{key: key, nonces: map[string]string{}}
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		pub, err := k.PublicKey.ECDH()
		if err != nil {
			return nil, fmt.Errorf("OAuth.DPoP.Key: %w", err)
		}
		b := pub.Bytes()[1:] // uncompressed point: 0x04 || X || Y
		x, y := b[:len(b)/2], b[len(b)/2:]
		var crv string
		switch k.Curve {
		case elliptic.P256():
			crv, s.method = "P-256", jwt.SigningMethodES256
		case elliptic.P384():
			crv, s.method = "P-384", jwt.SigningMethodES384
		case elliptic.P521():
			crv, s.method = "P-521", jwt.SigningMethodES512
		default:
			return nil, errors.New("OAuth.DPoP.Key: an ECDSA key must be on P-256, P-384 or P-521")
		}
		s.jwk = map[string]any{"kty": "EC", "crv": crv, "x": b64(x), "y": b64(y)}
	case *rsa.PrivateKey:
		s.method = jwt.SigningMethodRS256
		s.jwk = map[string]any{"kty": "RSA", "n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
	default:
		return nil, fmt.Errorf("OAuth.DPoP.Key: unsupported key type %T (want *ecdsa.PrivateKey or *rsa.PrivateKey)", key)
	}
	return s, nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// proof signs a proof of method and url (RFC 9449 §4.2), for the access
// token accessToken if not empty, with the nonce url's origin last sent.
func (s *dpopSigner) proof(method string, u string, accessToken string) (string, error) {
	htu, _, _ := strings.Cut(u, "#")
	htu, _, _ = strings.Cut(htu, "?")
	claims := jwt.MapClaims{"jti": rand.Text(), "htm": method, "htu": htu, "iat": time.Now().Unix()}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = b64(sum[:])
	}
	if n := s.nonce(originOfRaw(u)); n != "" {
		claims["nonce"] = n
	}
	t := jwt.NewWithClaims(s.method, claims)
	t.Header["typ"] = "dpop+jwt"
	t.Header["jwk"] = s.jwk
	return t.SignedString(s.key)
}

func (s *dpopSigner) nonce(origin string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nonces[origin]
}

// setNonce keeps the nonce an origin sent, reporting whether it is new.
func (s *dpopSigner) setNonce(origin, n string) bool {
	if n == "" || len(n) > 1024 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nonces[origin] == n {
		return false
	}
	if len(s.nonces) >= 64 { // a handler talks to a few origins; never grow without bound
		clear(s.nonces)
	}
	s.nonces[origin] = n
	return true
}

// note records whether the token handed to go-sdk is DPoP-bound.
func (s *dpopSigner) note(t *oauth2.Token) {
	if t == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.EqualFold(t.TokenType, "dpop") {
		s.bound = t.AccessToken
	} else if s.bound == t.AccessToken {
		s.bound = ""
	}
}

func (s *dpopSigner) isBound(tok string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return tok != "" && s.bound == tok
}

// notingSource tells the signer the type of every token go-sdk presents.
type notingSource struct {
	base oauth2.TokenSource
	s    *dpopSigner
}

func (n notingSource) Token() (*oauth2.Token, error) {
	t, err := n.base.Token()
	if err == nil {
		n.s.note(t)
	}
	return t, err
}

// dpopTransport adds proofs to the requests of one side: the MCP server's
// (resource), where a DPoP-bound bearer token becomes the DPoP scheme, or
// the authorization servers' (token requests: form POSTs).
type dpopTransport struct {
	base     http.RoundTripper
	s        *dpopSigner
	resource bool
}

// maxNonceBody bounds what is read of an error response for its error code.
const maxNonceBody = 64 << 10

func (t *dpopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r, ok, err := t.prove(req)
	if err != nil {
		return nil, err
	}
	if !ok {
		return t.base.RoundTrip(req)
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	origin := originOfRaw(req.URL.String())
	fresh := t.s.setNonce(origin, resp.Header.Get("DPoP-Nonce"))
	// One retry, with the nonce just demanded (RFC 9449 §8, §9); a
	// request whose body cannot be replayed gets the answer as it is.
	if !fresh || req.GetBody == nil && req.Body != nil && req.Body != http.NoBody || !t.demandsNonce(resp) {
		return resp, nil
	}
	drain(resp)
	r, _, err = t.prove(req)
	if err != nil {
		return nil, err
	}
	if req.GetBody != nil {
		if r.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	return t.base.RoundTrip(r)
}

// prove returns a copy of req carrying a proof, or false when req needs
// none.
func (t *dpopTransport) prove(req *http.Request) (*http.Request, bool, error) {
	var tok string
	if t.resource {
		scheme, value, _ := strings.Cut(req.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "bearer") || !t.s.isBound(value) {
			return nil, false, nil
		}
		tok = value
	} else {
		ct, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
		if req.Method != http.MethodPost || ct != "application/x-www-form-urlencoded" {
			return nil, false, nil
		}
	}
	p, err := t.s.proof(req.Method, req.URL.String(), tok)
	if err != nil {
		return nil, false, fmt.Errorf("signing the DPoP proof: %w", err)
	}
	r := req.Clone(req.Context())
	if tok != "" {
		r.Header.Set("Authorization", "DPoP "+tok)
	}
	r.Header.Set("DPoP", p)
	return r, true, nil
}

// demandsNonce reports whether resp asks for a proof with a nonce: a 401
// whose DPoP challenge says use_dpop_nonce from the MCP server, a 400 whose
// error is use_dpop_nonce from an authorization server. A peeked body is
// put back.
func (t *dpopTransport) demandsNonce(resp *http.Response) bool {
	if t.resource {
		if resp.StatusCode != http.StatusUnauthorized {
			return false
		}
		for _, v := range resp.Header.Values("WWW-Authenticate") {
			if strings.Contains(v, "use_dpop_nonce") {
				return true
			}
		}
		return false
	}
	if resp.StatusCode != http.StatusBadRequest {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxNonceBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), resp.Body), resp.Body}
	if err != nil {
		return false
	}
	var e struct {
		Error string `json:"error"`
	}
	return json.Unmarshal(b, &e) == nil && e.Error == "use_dpop_nonce"
}

// originOfRaw is the scheme://host of a URL, or the URL itself when it does
// not parse (which keys its own nonce, harmlessly).
func originOfRaw(u string) string { return origin(u) }

// resourceClient returns hc with proofs for the MCP server's requests when
// DPoP is on.
func (h *Handler) ResourceClient(hc *http.Client) *http.Client {
	if h.dpop == nil {
		return hc
	}
	cp := *hc
	cp.Transport = &dpopTransport{base: transportOf(&cp), s: h.dpop, resource: true}
	return &cp
}

// tokenClient returns hc with proofs for token requests when DPoP is on.
func tokenClient(hc *http.Client, s *dpopSigner) *http.Client {
	if s == nil {
		return hc
	}
	cp := *hc
	cp.Transport = &dpopTransport{base: transportOf(&cp), s: s}
	return &cp
}

func transportOf(c *http.Client) http.RoundTripper {
	if c.Transport != nil {
		return c.Transport
	}
	return http.DefaultTransport
}
