package main

import (
	"context"
	"iter"
	"net/http"
	"os"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/console"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/gateway"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
)

// consoleAnonymousEnv, set to 1, serves the console without a token when
// the gateway has no inbound auth, to loopback connections only.
const consoleAnonymousEnv = "AGENTADAPTER_CONSOLE_ANONYMOUS"

func init() { consoleHandler = newConsole }

// newConsole builds the operator console over the gateway's approvals,
// registry, manager and store, behind the gateway's own inbound auth.
func newConsole(g *gateway.Gateway, st state.Store) http.Handler {
	opts := &console.Options{
		Approvals:    g.Approvals(),
		Tools:        g.Registry(),
		Ledger:       st.Ledger(),
		LedgerReader: storeLedger{st},
		Servers:      g.Manager(),
	}
	a, err := g.AuthOptions()
	if err != nil {
		return unavailable("the console could not read the gateway's auth: " + err.Error())
	}
	switch {
	case a != nil:
		opts.Auth = a
	case os.Getenv(consoleAnonymousEnv) == "1":
		opts.AllowAnonymousLocal = true
	default:
		return unavailable("the console needs the gateway's inbound auth (gateway.auth in the configuration), or " +
			consoleAnonymousEnv + "=1 to serve this machine without a token")
	}
	c, err := console.New(opts)
	if err != nil {
		return unavailable(err.Error())
	}
	return c
}

func unavailable(msg string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "console: "+msg, http.StatusServiceUnavailable)
	})
}

// storeLedger answers the console's ledger queries from the gateway's
// store.
type storeLedger struct{ st state.Store }

func (s storeLedger) Query(ctx context.Context, q adapter.LedgerQuery) iter.Seq2[adapter.Record, error] {
	return s.st.Records(ctx, q)
}
