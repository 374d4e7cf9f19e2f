// Package searchtest holds what the tool-search tests of every framework
// integration share: the catalog of real tool definitions
// (toolsearch/testdata) as a registry of echo tools with three of their own,
// the policy that denies one, and readers of the ledger and of a
// search_tools result. Tests only: no production package imports it.
package searchtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/agentadapter/agentadapter/toolsearch"
)

// Catalog is a registry of many tools for the tool-search tests: the
// real tools of toolsearch/testdata (server-everything, filesystem,
// memory, sequential-thinking, postgres and the go-sdk conformance
// server), answering with their arguments, plus weather_forecast
// (read-only), launch_rocket (held for approval) and payroll_export
// (tagged secret: the policy denies it). ran counts the local tools' runs.
func Catalog(t testing.TB) (reg *registry.Registry, ran *atomic.Int64) {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "toolsearch", "testdata", "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var defs []struct {
		Server, Name, Title, Description string
		InputSchema                      *jsonschema.Schema
	}
	if err := json.Unmarshal(b, &defs); err != nil {
		t.Fatal(err)
	}
	ran = &atomic.Int64{}
	echo := func(name string) func(context.Context, json.RawMessage) (*adapter.Result, error) {
		return func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
			ran.Add(1)
			return adapter.TextResult(name + " ran with " + string(args)), nil
		}
	}
	reg = registry.New()
	for _, d := range defs {
		reg.MustRegister(&adapter.Spec{Name: d.Name, Title: d.Title, Description: d.Description, InputSchema: d.InputSchema,
			Source: adapter.Source{Server: d.Server, RemoteName: d.Name, Trusted: true}, Handler: echo(d.Name), HonorsContext: true})
	}
	no := false
	city := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"city": {Type: "string"}}, Required: []string{"city"}}
	reg.MustRegister(
		&adapter.Spec{Name: "weather_forecast", Description: "Forecast the weather of a city for the coming days.", InputSchema: city,
			Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &no}, Handler: echo("weather_forecast"), HonorsContext: true},
		&adapter.Spec{Name: "launch_rocket", Description: "Launch the rocket to a city (destructive).", InputSchema: city,
			Annotations: adapter.Annotations{OpenWorld: &no}, Handler: echo("launch_rocket"), HonorsContext: true},
		&adapter.Spec{Name: "payroll_export", Description: "Export the payroll of a city, salaries included.", InputSchema: city,
			Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &no}, Tags: []string{"secret"}, Handler: echo("payroll_export"), HonorsContext: true},
	)
	if reg.Len() < 70 {
		t.Fatalf("the catalog holds %d tools", reg.Len())
	}
	return reg, ran
}

// Policy is the policy of the tool-search tests: payroll_export is denied.
var Policy = registry.Filter{Func: func(s *adapter.Spec) bool { return !s.HasTag("secret") }}

// Records returns the ledger's records as tool:outcome, the executor flushed first.
func Records(t testing.TB, exec *adapter.Executor, led *ledger.Memory) []string {
	t.Helper()
	if err := exec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range led.Records() {
		out = append(out, r.Tool+":"+r.Outcome)
	}
	return out
}

// Found returns the names of a search_tools result as the model read it.
func Found(t testing.TB, text string) []string {
	t.Helper()
	var res toolsearch.SearchResult
	if err := json.Unmarshal([]byte(text), &res); err != nil {
		t.Fatalf("search_tools result is not its JSON: %v\n%s", err, text)
	}
	var out []string
	for _, f := range res.Tools {
		out = append(out, f.Name)
	}
	return out
}
