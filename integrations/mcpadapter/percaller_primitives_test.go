package mcpadapter_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
	"github.com/agentadapter/agentadapter/registry"
)

// TestPerCallerPrimitives (#27): an OAuth.PerCaller server's resources,
// prompts and completions, relayed by the export, reach the upstream with
// each caller's own token, as its tool calls do: alice reads, renders and
// completes as alice and bob as bob (in parallel too); carol, with no token of hers, and
// an anonymous caller get the sign-in error and never the shared
// identity's answer; deleting alice's token stops only her reads.
func TestPerCallerPrimitives(t *testing.T) {
	ctx := context.Background()
	_, resource, issuer, store := perCallerSetup(t)
	userKey := func(sub string) token.Key {
		return token.Key{Server: "up", Subject: sub, Issuer: issuer, Resource: resource}
	}
	for k, access := range map[token.Key]string{{Server: "up", Resource: resource}: "up-svc", userKey("alice"): "up-alice", userKey("bob"): "up-bob"} {
		if err := store.PutToken(ctx, k, &token.Token{AccessToken: access, TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	reg := registry.New()
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	m := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Executor: exec, ConnectTimeout: 10 * time.Second})
	defer m.Close()
	if err := m.Connect(ctx, mcpadapter.Upstream{Name: "up", URL: resource, OAuth: &oauth.Config{PerCaller: true, Tokens: store}}); err != nil {
		t.Fatal(err)
	}
	ex := newExporter(t, reg, exec, &mcpadapter.ExportOptions{Upstreams: &mcpadapter.Upstreams{Manager: m}})
	srv := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}})
	anon := exServeHTTP(t, ex, nil)
	alice := exConnectHTTP(t, srv.URL, nil, bearerClient("alice"))
	bob := exConnectHTTP(t, srv.URL, nil, bearerClient("bob"))
	carol := exConnectHTTP(t, srv.URL, nil, bearerClient("noscope")) // carol, with no upstream token
	nobody := exConnectHTTP(t, anon.URL, nil, nil)

	// The listings are the shared identity's: find the exported names.
	var prompt string
	for p, err := range alice.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p.Name, "whoami") {
			prompt = p.Name
		}
	}
	if prompt == "" {
		t.Fatal("the upstream's prompt is not exported")
	}
	// ask returns what cs reads, renders and completes, each as its text
	// or its error.
	ask := func(cs *mcp.ClientSession) (read, got, completed string) {
		t.Helper()
		if r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://whoami"}); err != nil {
			read = "error: " + err.Error()
		} else {
			read = r.Contents[0].Text
		}
		if r, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: prompt, Arguments: map[string]string{"who": "x"}}); err != nil {
			got = "error: " + err.Error()
		} else {
			got = r.Messages[0].Content.(*mcp.TextContent).Text
		}
		if r, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: prompt},
			Argument: mcp.CompleteParamsArgument{Name: "who", Value: "u"}}); err != nil {
			completed = "error: " + err.Error()
		} else if len(r.Completion.Values) > 0 {
			completed = r.Completion.Values[0]
		}
		return read, got, completed
	}
	for _, c := range []struct {
		name string
		cs   *mcp.ClientSession
	}{{"alice", alice}, {"bob", bob}, {"alice again", alice}} {
		user := strings.Fields(c.name)[0]
		read, got, completed := ask(c.cs)
		if read != "upstream user "+user || got != "upstream user "+user || completed != "user-"+user {
			t.Errorf("%s: read %q, prompt %q, completion %q", c.name, read, got, completed)
		}
	}
	for name, cs := range map[string]*mcp.ClientSession{"carol": carol, "anonymous": nobody} {
		read, got, completed := ask(cs)
		for what, s := range map[string]string{"read": read, "prompt": got, "completion": completed} {
			if !strings.Contains(s, "sign in") || strings.Contains(s, "upstream user") || strings.Contains(s, "user-") || strings.Contains(s, "up-") {
				t.Errorf("%s's %s: %q, want the sign-in error", name, what, s)
			}
		}
	}

	// In parallel, alice's and bob's reads never cross.
	var wg sync.WaitGroup
	errs := make(chan string, 40)
	for range 20 {
		for name, cs := range map[string]*mcp.ClientSession{"alice": alice, "bob": bob} {
			wg.Go(func() {
				if read, _, completed := ask(cs); read != "upstream user "+name || completed != "user-"+name {
					errs <- name + " got " + read + ", " + completed
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	// Alice disconnected: her reads, prompts and completions stop, bob's go on.
	if err := store.DeleteToken(ctx, userKey("alice")); err != nil {
		t.Fatal(err)
	}
	if read, got, completed := ask(exConnectHTTP(t, srv.URL, nil, bearerClient("alice"))); !strings.Contains(read, "sign in") || !strings.Contains(got, "sign in") || !strings.Contains(completed, "sign in") {
		t.Errorf("alice disconnected: read %q, prompt %q, completion %q", read, got, completed)
	}
	if read, got, _ := ask(bob); read != "upstream user bob" || got != "upstream user bob" {
		t.Errorf("bob after alice disconnected: read %q, prompt %q", read, got)
	}
}
