// Command conformance-client is the client under test for the official MCP
// conformance suite's client scenarios, built on mcpadapter's import side
// only (no go-sdk client code of its own):
//
//	conformance client --command "conformance-client" --suite all
//
// The suite passes the server URL as the last argument, the scenario in
// MCP_CONFORMANCE_SCENARIO and scenario data (client credentials, keys) in
// MCP_CONFORMANCE_CONTEXT. The client imports the server's tools into a
// registry through a Manager, then calls the scenario's tool through an
// executor. OAuth scenarios use mcpadapter.OAuth; elicitation scenarios an
// ElicitationPort.
package main

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: conformance-client [flags] <server URL>")
	}
	var cc map[string]any
	if s := os.Getenv("MCP_CONFORMANCE_CONTEXT"); s != "" {
		if err := json.Unmarshal([]byte(s), &cc); err != nil {
			log.Fatalf("MCP_CONFORMANCE_CONTEXT: %v", err)
		}
	}
	if err := run(os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Args[len(os.Args)-1], cc); err != nil {
		log.Fatal(err)
	}
}

// scenarioTool is the tool each scenario expects the client to call.
var scenarioTool = map[string]struct{ name, args string }{
	"tools_call":                          {"add_numbers", `{"a":5,"b":3}`},
	"elicitation-sep1034-client-defaults": {"test_client_elicitation_defaults", `{}`},
	"sse-retry":                           {"test_reconnection", `{}`},
}

func run(scenario, serverURL string, cc map[string]any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	server := mcpadapter.Server{Name: "conformance", URL: serverURL}
	opts := &mcpadapter.ManagerOptions{Strict: true}
	if strings.HasPrefix(scenario, "auth/") {
		oauth, err := oauthFor(scenario, cc)
		if err != nil {
			return err
		}
		server.OAuth = oauth
	}
	if strings.HasPrefix(scenario, "elicitation") {
		// Accept without filling anything in: the schema's defaults apply.
		opts.Elicitation = func(ctx context.Context, _ string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		}
	}
	reg := registry.New()
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	opts.Executor = exec
	m := mcpadapter.NewManager(reg, opts)
	defer m.Close()
	if err := m.Connect(ctx, server); err != nil {
		return err
	}
	for s := range reg.List(registry.Filter{}) {
		fmt.Printf("tool %s: %s\n", s.Name, s.Description)
	}
	call, ok := scenarioTool[scenario]
	if strings.HasPrefix(scenario, "auth/") {
		call, ok = struct{ name, args string }{"test-tool", `{}`}, true
	}
	if !ok {
		return nil
	}
	res, err := exec.Call(ctx, call.name, json.RawMessage(call.args))
	if err != nil {
		return err
	}
	fmt.Println(res.Text())
	return nil
}

// oauthFor configures OAuth the way the scenario's authorization server
// expects: a client ID metadata document where supported, the
// pre-registered client the context names, dynamic registration otherwise,
// or the client-credentials grant.
//
// Each scenario's authorization server listens on a port of its own, which
// the scenario's context does not name, so client credentials cannot be
// pinned to it (OAuth.Issuer): the suite's client takes AnyIssuer, the
// MCP specification's default. A deployment pins the issuer instead.
func oauthFor(scenario string, cc map[string]any) (*mcpadapter.OAuth, error) {
	str := func(k string) string { s, _ := cc[k].(string); return s }
	switch scenario {
	case "auth/client-credentials-basic":
		return &mcpadapter.OAuth{ClientCredentials: &mcpadapter.ClientCredentials{ClientID: str("client_id"), ClientSecret: str("client_secret")}, AnyIssuer: true}, nil
	case "auth/cross-app-access-complete-flow":
		return &mcpadapter.OAuth{Enterprise: &mcpadapter.EnterpriseAuth{
			IDToken:     func(context.Context) (string, error) { return str("idp_id_token"), nil },
			IdPTokenURL: str("idp_token_endpoint"), IdPClientID: str("idp_client_id"),
			ClientID: str("client_id"), ClientSecret: str("client_secret"),
		}, AnyIssuer: true}, nil
	case "auth/client-credentials-jwt":
		key, err := parseKey(str("private_key_pem"))
		if err != nil {
			return nil, err
		}
		return &mcpadapter.OAuth{ClientCredentials: &mcpadapter.ClientCredentials{ClientID: str("client_id"), PrivateKey: key}, AnyIssuer: true}, nil
	}
	return &mcpadapter.OAuth{
		Authorize:         followRedirect,
		RedirectURL:       "http://localhost:3000/callback",
		ClientMetadataURL: "https://conformance-test.local/client-metadata.json",
		ClientID:          str("client_id"),
		ClientSecret:      str("client_secret"),
		ClientName:        "agentadapter conformance client",
		AnyIssuer:         true,
	}, nil
}

func parseKey(p string) (crypto.Signer, error) {
	b, _ := pem.Decode([]byte(p))
	if b == nil {
		return nil, errors.New("private_key_pem is not PEM")
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return nil, err
	}
	s, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("unsupported key %T", k)
	}
	return s, nil
}

// followRedirect is the AuthorizationHandler of a headless test: the
// suite's authorization server approves at once and redirects to the
// redirect URL, whose query carries the code.
func followRedirect(ctx context.Context, req *mcpadapter.AuthorizationRequest) (*auth.AuthorizationResult, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, req.URL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(r)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return nil, err
	}
	q := loc.Query()
	return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}
