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
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
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

// toolCall is one call a scenario expects.
type toolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// scenarioCalls are the calls each scenario expects the client to make;
// scenarios that name theirs in the context's toolCalls (http-custom-headers)
// are not listed.
var scenarioCalls = map[string][]toolCall{
	"tools_call":                          {{"add_numbers", json.RawMessage(`{"a":5,"b":3}`)}},
	"elicitation-sep1034-client-defaults": {{"test_client_elicitation_defaults", nil}},
	"sse-retry":                           {{"test_reconnection", nil}},
	// SEP-2322: two tools answer with input requests (one with a
	// requestState), one is called between them, one answers without a
	// resultType.
	"sep-2322-client-request-state": {{"test_mrtr_echo_state", nil}, {"test_mrtr_no_state", nil}, {"test_mrtr_unrelated", nil}, {"test_mrtr_no_result_type", nil}},
}

func run(scenario, serverURL string, cc map[string]any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	server := mcpadapter.Upstream{Name: "conformance", URL: serverURL}
	opts := &mcpadapter.ManagerOptions{Strict: true}
	if strings.HasPrefix(scenario, "auth/") {
		oauth, err := oauthFor(scenario, cc)
		if err != nil {
			return err
		}
		server.OAuth = oauth
	}
	if strings.HasPrefix(scenario, "elicitation") || strings.HasPrefix(scenario, "sep-2322") {
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
	calls, err := callsFor(scenario, reg, cc)
	if err != nil {
		return err
	}
	var errs []error
	for _, call := range calls {
		res, err := exec.Call(ctx, call.Name, call.Arguments)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", call.Name, err))
			continue
		}
		fmt.Println(res.Text())
	}
	return errors.Join(errs...)
}

// callsFor returns the calls the scenario expects, some of them built from
// what was imported.
func callsFor(scenario string, reg *registry.Registry, cc map[string]any) ([]toolCall, error) {
	switch {
	case strings.HasPrefix(scenario, "auth/"):
		return []toolCall{{"test-tool", nil}}, nil
	case scenario == "http-invalid-tool-headers":
		// Every tool that survived the import: the invalid ones must not.
		var calls []toolCall
		for s := range reg.List(registry.Filter{}) {
			calls = append(calls, toolCall{s.Name, json.RawMessage(`{"region":"us-west1"}`)})
		}
		return calls, nil
	case scenario == "json-schema-2020-12-preservation":
		// Echo the imported input schema: the suite checks what of it
		// survived the import.
		s, ok := reg.Lookup("json_schema_2020_12_tool")
		if !ok {
			return nil, errors.New("json_schema_2020_12_tool was not imported")
		}
		args, err := json.Marshal(map[string]any{"schema": s.InputSchema})
		if err != nil {
			return nil, err
		}
		return []toolCall{{"json_schema_echo", args}}, nil
	}
	if raw, ok := cc["toolCalls"]; ok {
		b, err := json.Marshal(raw)
		if err != nil {
			return nil, err
		}
		var calls []toolCall
		if err := json.Unmarshal(b, &calls); err != nil {
			return nil, fmt.Errorf("toolCalls: %w", err)
		}
		return calls, nil
	}
	return scenarioCalls[scenario], nil
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
func oauthFor(scenario string, cc map[string]any) (*oauth.Config, error) {
	str := func(k string) string { s, _ := cc[k].(string); return s }
	switch scenario {
	case "auth/client-credentials-basic":
		return &oauth.Config{ClientCredentials: &oauth.ClientCredentials{ClientID: str("client_id"), ClientSecret: str("client_secret")}, AnyIssuer: true}, nil
	case "auth/cross-app-access-complete-flow", "auth/enterprise-managed-authorization":
		return &oauth.Config{Enterprise: &oauth.Enterprise{
			IDToken:     func(context.Context) (string, error) { return str("idp_id_token"), nil },
			IdPTokenURL: str("idp_token_endpoint"), IdPClientID: str("idp_client_id"),
			ClientID: str("client_id"), ClientSecret: str("client_secret"),
		}, AnyIssuer: true}, nil
	case "auth/wif-jwt-bearer":
		// The suite's workload JWT names the authorization server as its
		// audience already.
		return &oauth.Config{WorkloadIdentity: &oauth.WorkloadIdentity{
			Assertion: func(context.Context, string) (string, error) { return str("valid_jwt"), nil },
			ClientID:  str("client_id"),
		}, AnyIssuer: true}, nil
	case "auth/client-credentials-jwt":
		key, err := parseKey(str("private_key_pem"))
		if err != nil {
			return nil, err
		}
		return &oauth.Config{ClientCredentials: &oauth.ClientCredentials{ClientID: str("client_id"), PrivateKey: key}, AnyIssuer: true}, nil
	}
	var dpop *oauth.DPoP
	if strings.HasPrefix(scenario, "auth/dpop") {
		dpop = &oauth.DPoP{} // a key of the process's own
	}
	return &oauth.Config{
		DPoP:              dpop,
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
func followRedirect(ctx context.Context, req *oauth.AuthorizationRequest) (*auth.AuthorizationResult, error) {
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
