package mcpadapter_test

import (
	"context"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// A command-line program connects to an OAuth-protected server: the manager
// prints the sign-in URL, waits for the browser's redirect on
// DefaultRedirectURL, and keeps the tokens in a file for the next run.
func ExampleOAuth() {
	ctx := context.Background()
	m := mcpadapter.NewManager(registry.New(), nil)
	defer m.Close()
	dir, _ := os.UserConfigDir()
	err := m.Connect(ctx, mcpadapter.Upstream{
		Name: "docs", URL: "https://docs.example.com/mcp",
		OAuth:          &mcpadapter.OAuth{Tokens: mcpadapter.NewFileTokenStore(filepath.Join(dir, "myagent", "tokens.json"))},
		ConnectTimeout: 5 * time.Minute, // time for the user to sign in
	})
	if err != nil {
		log.Fatal(err)
	}
}

// A machine-to-machine server takes the client-credentials grant.
func ExampleClientCredentials() {
	m := mcpadapter.NewManager(registry.New(), nil)
	defer m.Close()
	err := m.Connect(context.Background(), mcpadapter.Upstream{
		Name: "billing", URL: "https://billing.internal/mcp",
		OAuth: &mcpadapter.OAuth{ClientCredentials: &mcpadapter.ClientCredentials{
			ClientID: "agent", ClientSecret: os.Getenv("BILLING_CLIENT_SECRET"),
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
}
