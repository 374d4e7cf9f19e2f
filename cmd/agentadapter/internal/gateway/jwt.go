package gateway

import (
	"context"
	"crypto"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
)

// jwtVerifier checks signed tokens. The accepted algorithms follow the
// key: HMAC for a secret, the key's own family for a public key, so a
// token cannot pick a weaker algorithm ("none", or HMAC keyed with the
// public key).
func jwtVerifier(c *config.JWT) (auth.TokenVerifier, error) {
	var key any
	var methods []string
	if c.Secret != "" {
		key, methods = []byte(c.Secret), []string{"HS256", "HS384", "HS512"}
	} else {
		pem, err := os.ReadFile(c.PublicKeyFile)
		if err != nil {
			return nil, fmt.Errorf("auth.jwt: %v", err)
		}
		var pub crypto.PublicKey
		switch {
		case strings.Contains(string(pem), "BEGIN PUBLIC KEY") || strings.Contains(string(pem), "BEGIN RSA PUBLIC KEY"):
			if pub, err = jwt.ParseRSAPublicKeyFromPEM(pem); err == nil {
				methods = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}
			} else if pub, err = jwt.ParseECPublicKeyFromPEM(pem); err == nil {
				methods = []string{"ES256", "ES384", "ES512"}
			} else if pub, err = jwt.ParseEdPublicKeyFromPEM(pem); err == nil {
				methods = []string{"EdDSA"}
			}
		default:
			err = fmt.Errorf("no PEM public key in %s", c.PublicKeyFile)
		}
		if err != nil {
			return nil, fmt.Errorf("auth.jwt: %v", err)
		}
		key = pub
	}
	opts := []jwt.ParserOption{jwt.WithValidMethods(methods), jwt.WithExpirationRequired(), jwt.WithLeeway(30 * time.Second)}
	if c.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(c.Issuer))
	}
	if c.Audience != "" {
		opts = append(opts, jwt.WithAudience(c.Audience))
	}
	parser := jwt.NewParser(opts...)
	return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		claims := jwt.MapClaims{}
		if _, err := parser.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) { return key, nil }); err != nil {
			return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
		}
		sub, _ := claims.GetSubject()
		if sub == "" {
			return nil, fmt.Errorf("%w: no subject", auth.ErrInvalidToken)
		}
		if strings.HasPrefix(sub, export.AnonymousPrefix) {
			// Anonymous sessions are named so; a token must not take one over.
			return nil, fmt.Errorf("%w: subject %q is reserved for anonymous sessions", auth.ErrInvalidToken, export.AnonymousPrefix)
		}
		exp, _ := claims.GetExpirationTime()
		info := &auth.TokenInfo{UserID: sub, Expiration: exp.Time}
		switch s := claims["scope"].(type) {
		case string:
			info.Scopes = strings.Fields(s)
		}
		if scp, ok := claims["scp"].([]any); ok {
			for _, v := range scp {
				if s, ok := v.(string); ok {
					info.Scopes = append(info.Scopes, s)
				}
			}
		}
		return info, nil
	}, nil
}
