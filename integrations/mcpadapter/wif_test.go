package mcpadapter_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// workloadJWT signs a workload identity token as a platform would.
func workloadJWT(t *testing.T, key *ecdsa.PrivateKey, aud string, ttl time.Duration) string {
	t.Helper()
	now := time.Now()
	s, err := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.RegisteredClaims{
		Issuer: "https://idp.example", Subject: "workload", Audience: jwt.ClaimStrings{aud},
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
	}).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOAuthWorkloadIdentity: the workload's JWT buys a token in a
// JWT-bearer grant at the discovered authorization server, for that
// server's audience; a revoked token is replaced by a new grant with a
// fresh assertion; a refused assertion fails Connect with the server's
// code, without the assertion in the error and without falling back to
// another grant.
func TestOAuthWorkloadIdentity(t *testing.T) {
	a := newAuthServer(t)
	platform := mustKey(t)
	a.workload = &platform.PublicKey

	var mu sync.Mutex
	var audiences []string
	// The platform's token, signed once for the audience asked, as a
	// token file holds it until it rotates.
	assertion := func(key *ecdsa.PrivateKey, ttl time.Duration) func(context.Context, string) (string, error) {
		var tok string
		return func(_ context.Context, aud string) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			audiences = append(audiences, aud)
			if tok == "" {
				tok = workloadJWT(t, key, aud, ttl)
			}
			return tok, nil
		}
	}

	t.Run("Valid", func(t *testing.T) {
		var logs, ledger syncBuffer
		e, err := newOAuthEnv(t, a, &mcpadapter.OAuth{WorkloadIdentity: &mcpadapter.WorkloadIdentity{
			Assertion: assertion(platform, time.Minute), ClientID: "workload"}}, &logs, &ledger)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.call(t, "read_tool"); err != nil {
			t.Fatal(err)
		}
		a.revoke(false)
		if err := e.call(t, "read_tool"); err != nil {
			t.Fatalf("after revocation: %v", err)
		}
		mu.Lock()
		got := append([]string(nil), audiences...)
		mu.Unlock()
		if len(got) != 2 || got[0] != a.url || got[1] != a.url {
			t.Errorf("assertions asked for audiences %q, want two for %q", got, a.url)
		}
		if n, _, _ := a.counts(); n != 0 {
			t.Errorf("workload identity sent a user to authorize %d times", n)
		}
	})

	for name, tc := range map[string]struct {
		assertion func(context.Context, string) (string, error)
		want      string
	}{
		"ForeignKey": {assertion(mustKey(t), time.Minute), "invalid_grant"},
		"Expired":    {assertion(platform, -time.Minute), "invalid_grant"},
		"AssertionFails": {func(context.Context, string) (string, error) {
			return "", errors.New("no token file")
		}, "no token file"},
		"Empty": {func(context.Context, string) (string, error) { return "", nil }, "empty"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, before := a.counts()
			a.mu.Lock()
			bearerBefore := a.jwtBearer
			a.mu.Unlock()
			var logs, ledger syncBuffer
			_, err := newOAuthEnv(t, a, &mcpadapter.OAuth{WorkloadIdentity: &mcpadapter.WorkloadIdentity{Assertion: tc.assertion}}, &logs, &ledger)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Connect = %v, want an error naming %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "eyJ") || strings.Contains(logs.String(), "eyJ") {
				t.Errorf("the assertion leaked into the error or the logs: %v", err)
			}
			if n, _, after := a.counts(); n != 0 || after != before {
				t.Errorf("a refused workload grant fell back: %d authorizations, %d grants", n, after-before)
			}
			a.mu.Lock()
			attempts := a.jwtBearer - bearerBefore
			a.mu.Unlock()
			if want := map[bool]int{true: 1, false: 0}[tc.want == "invalid_grant"]; attempts != want {
				t.Errorf("%d JWT-bearer requests, want %d: a refused assertion is not presented again", attempts, want)
			}
		})
	}

	t.Run("Config", func(t *testing.T) {
		for name, o := range map[string]*mcpadapter.OAuth{
			"NoAssertion": {WorkloadIdentity: &mcpadapter.WorkloadIdentity{ClientID: "w"}},
			"TwoGrants": {WorkloadIdentity: &mcpadapter.WorkloadIdentity{Assertion: assertion(platform, time.Minute)},
				ClientCredentials: &mcpadapter.ClientCredentials{ClientID: "x", ClientSecret: "y"}},
		} {
			var logs, ledger syncBuffer
			if _, err := newOAuthEnv(t, a, o, &logs, &ledger); err == nil {
				t.Errorf("%s: Connect accepted an invalid configuration", name)
			}
		}
	})
}
