package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
	"github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
	"github.com/agentadapter/agentadapter/termtext"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
)

// inspected is one tool as each framework sees it.
type inspected struct {
	Name        string          `json:"name"`
	Server      string          `json:"server"`
	RemoteName  string          `json:"remoteName"`
	Annotations map[string]bool `json:"annotations"`
	// Eino is the schema.ToolInfo: name, description and the parameters as
	// the JSON schema eino hands to its model.
	Eino json.RawMessage `json:"eino"`
	// Genkit is the ai.ToolDefinition.
	Genkit json.RawMessage `json:"genkit"`
	// Langchaingo is the llms.Tool for function calling; LangchaingoStrict
	// its strict variant, and StrictLoses what strict mode cannot carry.
	Langchaingo       json.RawMessage `json:"langchaingo"`
	LangchaingoStrict json.RawMessage `json:"langchaingoStrict,omitempty"`
	StrictLoses       []string        `json:"strictLoses,omitempty"`
	Errors            []string        `json:"errors,omitempty"`
	lostKeywords      []string
}

func newInspectCmd(e *env) *cobra.Command {
	var endpoint string
	cmd := &cobra.Command{
		Use:   "inspect [SERVER...]",
		Short: "Show the tools as each framework sees them",
		Long: `Connect the configured servers (or only those named) and show each tool as
the frameworks see it after the gateway's policy (trust, rename, overrides):
eino's ToolInfo, genkit's tool definition, langchaingo's llms.Tool, and the
strict variant of the latter with what strict mode cannot carry.

A table by default; --json prints every definition in full.` + exitCodesHelp,
		Example: `  agentadapter inspect --config mcp.json
  agentadapter inspect everything --json`,
		RunE: func(c *cobra.Command, args []string) error {
			cfg, err := e.loadConfig("")
			if err != nil {
				return err
			}
			if len(args) > 0 {
				keep := map[string]bool{}
				for _, a := range args {
					keep[a] = true
				}
				var servers []*config.Server
				for _, s := range cfg.Servers {
					if keep[s.Name] {
						servers = append(servers, s)
						delete(keep, s.Name)
					}
				}
				for name := range keep {
					return usageErr("no server named %q in %s", name, termtext.Line(cfg.File))
				}
				cfg.Servers = servers
			}
			e.stopGrace = oneShotStopGrace
			s, err := e.start(c.Context(), cfg, e.logger(slog.LevelWarn), false)
			if err != nil {
				return err
			}
			defer s.close()
			if _, ok := s.gw.Executor(endpoint); !ok {
				return usageErr("no endpoint %q", endpoint)
			}
			// What the endpoint's clients list: a search virtual server's
			// meta-tools and alwaysLoaded tools, another's selection.
			listed, _ := s.gw.Listed(endpoint)
			out := make([]*inspected, 0, len(listed))
			for _, spec := range listed {
				out = append(out, inspect(spec))
			}
			if e.jsonOut {
				return printJSON(e.stdout, out, true)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TOOL\tSERVER\tHINTS\tEINO\tGENKIT\tLANGCHAINGO\tSTRICT")
			for _, t := range out {
				strict := "ok"
				if len(t.StrictLoses) > 0 {
					strict = fmt.Sprintf("loses %d: %s", len(t.StrictLoses), strings.Join(t.lostKeywords, " "))
				}
				if t.LangchaingoStrict == nil {
					strict = "not possible: " + strings.Join(t.lostKeywords, " ")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", termtext.Line(t.Name), termtext.Line(t.Server), hints(t.Annotations),
					okOr(t.Eino), okOr(t.Genkit), okOr(t.Langchaingo), termtext.Line(strict))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, t := range out {
				for _, msg := range t.Errors {
					fmt.Fprintf(e.stdout, "%s: %s\n", termtext.Line(t.Name), termtext.Line(msg))
				}
			}
			if found, ok := s.gw.Searchable(endpoint); ok {
				fmt.Fprintf(e.stdout, "search: clients list the tools above; search_tools finds and call_tool runs %d tools (this endpoint's selection, quarantined tools aside)\n", len(found))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&endpoint, "endpoint", "", "the tools of a virtual server")
	return cmd
}

func inspect(spec *adapter.Spec) *inspected {
	a := spec.Annotations
	t := &inspected{Name: spec.Name, Server: spec.Source.Server, RemoteName: spec.Source.RemoteName,
		Annotations: map[string]bool{"readOnly": a.ReadOnly, "destructive": a.IsDestructive(), "idempotent": a.Idempotent, "openWorld": a.IsOpenWorld()}}
	fail := func(what string, err error) { t.Errors = append(t.Errors, fmt.Sprintf("%s: %v", what, err)) }
	if info, err := einoadapter.Info(spec); err != nil {
		fail("eino", err)
	} else {
		params, err := info.ParamsOneOf.ToJSONSchema()
		if err != nil {
			fail("eino", err)
		}
		t.Eino = marshal(map[string]any{"name": info.Name, "desc": info.Desc, "extra": info.Extra, "params": params})
	}
	if def, err := genkitadapter.Definition(spec); err != nil {
		fail("genkit", err)
	} else {
		t.Genkit = marshal(def)
	}
	def, _ := langchaingoadapter.Definition(spec, false)
	t.Langchaingo = marshal(def)
	strict, issues := langchaingoadapter.Definition(spec, true)
	strictOK := true
	for _, i := range issues {
		path := i.Path
		if path == "" {
			path = "/"
		}
		t.StrictLoses = append(t.StrictLoses, fmt.Sprintf("%s: %s %s: %s", i.Severity, path, i.Keyword, i.Message))
		if !slices.Contains(t.lostKeywords, i.Keyword) {
			t.lostKeywords = append(t.lostKeywords, i.Keyword)
		}
		if i.Severity == langchaingoadapter.SeverityError {
			strictOK = false
		}
	}
	if strictOK {
		t.LangchaingoStrict = marshal(strict)
	}
	return t
}

func marshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	return b
}

func okOr(b json.RawMessage) string {
	if b == nil {
		return "error"
	}
	return "ok"
}

func hints(a map[string]bool) string {
	var out []string
	for _, k := range []string{"readOnly", "destructive", "idempotent", "openWorld"} {
		if a[k] {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ",")
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
