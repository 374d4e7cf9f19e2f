package export

import (
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// AuthOptions require a bearer token on every HTTP request, checked by
// go-sdk's auth.RequireBearerToken. A missing, invalid or expired token is
// refused with 401 and a WWW-Authenticate challenge; a token lacking a
// required scope with 403. The verified identity (TokenInfo.UserID as the
// subject, scopes, extra claims) reaches hooks, guards and approval policies
// as [adapter.ToolCall.Identity]. The token itself is never passed on: tools
// imported from other MCP servers call them with their own credentials.
type AuthOptions struct {
	// Verifier checks a token; it returns an error wrapping
	// auth.ErrInvalidToken for a token it rejects. Required.
	Verifier auth.TokenVerifier
	// Scopes are required of every token.
	Scopes []string
	// ResourceMetadataURL is the OAuth protected-resource metadata URL
	// announced in the WWW-Authenticate challenge.
	ResourceMetadataURL string
	// AllowMissingExpiration accepts tokens without an expiry (refused by
	// default).
	AllowMissingExpiration bool
	// ClockSkew tolerates that much clock difference on expiry.
	ClockSkew time.Duration
}

func requireBearer(h http.Handler, o *AuthOptions) http.Handler {
	if o.Verifier == nil {
		panic("mcpadapter: AuthOptions.Verifier is nil")
	}
	mw := auth.RequireBearerToken(o.Verifier, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL:    o.ResourceMetadataURL,
		Scopes:                 o.Scopes,
		AllowMissingExpiration: o.AllowMissingExpiration,
		ClockSkew:              o.ClockSkew,
	})(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mw.ServeHTTP(&challengeWriter{ResponseWriter: w}, r)
	})
}

// challengeWriter adds a bare "Bearer" challenge to a 401 that has none:
// go-sdk only writes WWW-Authenticate when it has metadata or scopes to
// announce, and RFC 9110 requires the header on every 401.
type challengeWriter struct {
	http.ResponseWriter
	wrote bool
}

func (c *challengeWriter) WriteHeader(code int) {
	if !c.wrote && code == http.StatusUnauthorized && c.Header().Get("WWW-Authenticate") == "" {
		c.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
	}
	c.wrote = true
	c.ResponseWriter.WriteHeader(code)
}

func (c *challengeWriter) Write(b []byte) (int, error) {
	c.wrote = true
	return c.ResponseWriter.Write(b)
}

// Flush lets event streams through the wrapper.
func (c *challengeWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (c *challengeWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
