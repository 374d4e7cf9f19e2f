// Package readme holds the Go snippets of README.md as a v0.1 user copied
// them, each in a function that supplies what the snippet leaves out.
package readme

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/console"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
	sqlitestore "github.com/agentadapter/agentadapter/store/sqlite"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

type WeatherIn struct {
	City string `json:"city" jsonschema:"the city"`
}
type WeatherOut struct {
	TempC    float64 `json:"temp_c"`
	Humidity int     `json:"humidity"`
}

// QuickStart is the README's first snippet.
func QuickStart(ctx context.Context) (*adapter.Result, error) {
	weather := adapter.MustTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, in WeatherIn) (WeatherOut, error) {
			return WeatherOut{TempC: 21.5, Humidity: 48}, nil
		}, nil)

	reg := registry.New()
	reg.MustRegister(weather)

	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	res, err := exec.Call(ctx, "get_weather", json.RawMessage(`{"city":"Paris"}`))
	// adapter.Render(res, nil): {"temp_c":21.5,"humidity":48}   (for the model)
	// res.Structured:   WeatherOut{21.5, 48}            (for the program)
	return res, err
}

// Durable is the README's snippet on durable state.
func Durable(ctx context.Context, reg *registry.Registry) error {
	db, err := sqlitestore.Open(ctx, "state.db", nil) // or pgstore.Open(ctx, dsn, nil)
	if err != nil {
		return err
	}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
		Ledger:   db.Ledger(),
		Approval: adapter.ApprovalOptions{Port: &adapter.Deferred{Store: db.Tickets()}},
		Cache:    &adapter.CacheOptions{Store: db.Cache(), Tools: map[string]time.Duration{"search": 0}},
	})
	defer exec.Close()
	mgr := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{PinStore: db.Pins()})
	_ = mgr
	return nil
}

// OAuth is the README's snippet on servers behind OAuth.
func OAuth(ctx context.Context, m *mcpadapter.Manager, tokensPath string) error {
	err := m.Connect(ctx, mcpadapter.Server{
		Name: "docs", URL: "https://docs.example.com/mcp",
		OAuth:          &mcpadapter.OAuth{Tokens: mcpadapter.NewFileTokenStore(tokensPath)}, // prints the sign-in URL,
		ConnectTimeout: 5 * time.Minute,                                                     // waits on 127.0.0.1:8976
	})
	return err
}

// Console is the README's snippet on the approval console.
func Console(mux *http.ServeMux, deferred *adapter.Deferred, reg *registry.Registry, ledger *adapter.MemoryLedger,
	manager *mcpadapter.Manager, verify auth.TokenVerifier,
	stillOperator func(ctx context.Context, operator string, token console.Credential) error) error {
	c, err := console.New(&console.Options{
		Approvals:    deferred,                                  // the executor's *adapter.Deferred
		Tools:        reg,                                       // descriptions, annotations, schemas
		Ledger:       ledger,                                    // every decision is a record
		LedgerReader: ledger,                                    // *adapter.MemoryLedger, or a durable store
		Servers:      manager,                                   // *mcpadapter.Manager, or nil
		Auth:         &mcpadapter.AuthOptions{Verifier: verify}, // operators' tokens
		Revalidate:   stillOperator,                             // (operator, SHA-256 of its token) still valid? else the session ends
	})
	if err != nil {
		return err
	}
	deferred.OnPending = func(*adapter.Ticket) { c.Notify() }
	mux.Handle("/console/", http.StripPrefix("/console", c))
	return nil
}
