package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/console"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/gateway"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
)

// newConsole builds the operator console serve mounts at /console/, or
// nil when the configuration has none.
func newConsole(cfg *config.Config, gw *gateway.Gateway, st state.Store, log *slog.Logger) (*console.Console, error) {
	cc := cfg.Gateway.Console
	if cc == nil {
		return nil, nil
	}
	opts := &console.Options{
		Approvals:           gw.Approvals(),
		Tools:               gw.Registry(),
		Ledger:              st.Ledger(),
		LedgerReader:        ledgerReader{st},
		Servers:             gw.Manager(),
		Standing:            gw.Standing(),
		Sessions:            sessions(st),
		AllowAnonymousLocal: cc.AnonymousLocal,
		Logger:              log,
	}
	if len(cc.Operators) > 0 {
		ops := map[[32]byte]config.Token{}
		for _, t := range cc.Operators {
			ops[sha256.Sum256([]byte(t.Token))] = t
		}
		opts.Auth = &mcpadapter.AuthOptions{Verifier: func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
			t, ok := ops[sha256.Sum256([]byte(token))]
			if !ok {
				return nil, fmt.Errorf("%w: not an operator token", auth.ErrInvalidToken)
			}
			return &auth.TokenInfo{UserID: t.Subject, Scopes: t.Scopes, Expiration: time.Now().Add(time.Hour)}, nil
		}}
	}
	c, err := console.New(opts)
	if err != nil {
		return nil, err
	}
	gw.Approvals().OnPending = func(*adapter.Ticket) { c.Notify() }
	return c, nil
}

// sessions keeps login sessions in the store's cache when it has one
// (SQLite, PostgreSQL): they outlive restarts and reach every replica.
func sessions(st state.Store) console.SessionStore {
	if c := st.Cache(); c != nil {
		return console.CacheSessions(c)
	}
	return nil
}

// ledgerReader reads the store's ledger for the console.
type ledgerReader struct{ st state.Store }

func (l ledgerReader) Query(ctx context.Context, q adapter.LedgerQuery) iter.Seq2[adapter.Record, error] {
	return l.st.Records(ctx, q)
}
