package console_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/console"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
	"github.com/agentadapter/agentadapter/registry"
)

// Mount the console beside the gateway, with the gateway's token verifier.
func ExampleNew() {
	reg := registry.New()
	d := &approval.Deferred{}
	ledger := ledger.NewMemory(0)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
		Approval: adapter.ApprovalOptions{Port: d},
		Ledger:   ledger,
	})
	defer exec.Close()

	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if token == "operator-token" {
			return &auth.TokenInfo{UserID: "alice", Expiration: time.Now().Add(time.Hour)}, nil
		}
		return nil, auth.ErrInvalidToken
	}
	c, err := console.New(&console.Options{
		Approvals:    d,
		Tools:        reg,
		Ledger:       ledger,
		LedgerReader: ledger,
		Auth:         &export.AuthOptions{Verifier: verify},
		// A login session lasts while its token is still alice's.
		Revalidate: func(_ context.Context, operator string, token console.Credential) error {
			if operator != "alice" || token != sha256.Sum256([]byte("operator-token")) {
				return errors.New("no longer an operator's token")
			}
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	d.OnPending = func(*approval.Ticket) { c.Notify() }

	mux := http.NewServeMux()
	mux.Handle("/console/", http.StripPrefix("/console", c))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, token := range []string{"", "operator-token"} {
		req, _ := http.NewRequest("GET", srv.URL+"/console/ledger", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			panic(err)
		}
		res.Body.Close()
		fmt.Println(res.StatusCode, res.Header.Get("Location"))
	}
	// Output:
	// 303 login
	// 200
}
