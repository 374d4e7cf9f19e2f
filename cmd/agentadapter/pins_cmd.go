package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/console"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/termtext"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
)

func newPinsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "pins", Short: "Tool definition pins: list, diff, accept", Long: `Each imported tool's definition is pinned by hash. A server that changes a
definition gets that tool quarantined (its calls refused) until an operator
reviews the change (pins diff) and accepts it (pins accept); a running gateway
releases the tool within a second.` + storeNote}
	list := &cobra.Command{Use: "list", Short: "List pins and quarantined tools", Args: argsErr(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			st, err := e.storeOnly(c.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			pins := map[string]string{}
			for p, err := range st.Pins().All(c.Context()) {
				if err != nil {
					return err
				}
				pins[p.Key] = p.Hash
			}
			qs, err := st.Quarantines(c.Context())
			if err != nil {
				return err
			}
			quar := map[string]state.Quarantine{}
			for _, q := range qs {
				quar[mcpadapter.PinKey(q.Server, q.RemoteName)] = q
			}
			name, err := e.toolNamer()
			if err != nil {
				return err
			}
			var rows []pinOutput
			for _, k := range sortedKeys(pins) {
				if strings.HasPrefix(k, "launch:") {
					continue // a server's launch pin: agentadapter servers list
				}
				server, remote, _ := strings.Cut(k, "/")
				r := pinOutput{Tool: name(server, remote), Server: server, RemoteName: remote, Pin: pins[k], State: "ok"}
				if q, ok := quar[k]; ok && q.Got != pins[k] {
					r.State, r.Got = "quarantined", q.Got
				}
				rows = append(rows, r)
			}
			if e.jsonOut {
				return printJSON(e.stdout, map[string]any{"tools": rows, "pins": pins, "quarantined": qs}, true)
			}
			// The remote name is the upstream's own, unfiltered: a table
			// cell gets it escaped.
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TOOL\tSERVER\tREMOTE NAME\tPIN\tSTATE")
			for _, r := range rows {
				st := r.State
				if r.Got != "" {
					st = "quarantined: changed to " + short(r.Got)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", cmpOr(r.Tool, "-"), termtext.Line(r.Server), termtext.Line(r.RemoteName), termtext.Line(short(r.Pin)), termtext.Line(st))
			}
			return tw.Flush()
		}}
	diff := &cobra.Command{Use: "diff [SERVER [TOOL] | SERVER/TOOL | TOOL]", Short: "Show what changed in quarantined definitions (a tool named as clients call it, or by its server)", Args: argsErr(cobra.MaximumNArgs(2)),
		RunE: func(c *cobra.Command, args []string) error {
			qs, err := e.quarantines(c, args)
			if err != nil {
				return err
			}
			if len(qs) == 0 {
				fmt.Fprintln(e.stdout, "no quarantined tools")
				return nil
			}
			name, err := e.toolNamer()
			if err != nil {
				return err
			}
			// Definitions are the upstream's text: every line printed is
			// escaped (JSON by printJSON's rules, the diff by termtext).
			for _, q := range qs {
				var prev, def any
				_ = json.Unmarshal(q.Previous, &prev)
				_ = json.Unmarshal(q.Definition, &def)
				fmt.Fprintf(e.stdout, "%s (server %s, remote name %s): pinned %s, now %s\n", cmpOr(name(q.Server, q.RemoteName), termtext.Line(q.Tool)),
					termtext.Line(q.Server), termtext.Line(q.RemoteName), termtext.Line(short(q.Pinned)), termtext.Line(short(q.Got)))
				fmt.Fprintf(e.stdout, "  accept: agentadapter pins accept %s %s --hash %s\n", termtext.Line(q.Server), termtext.Line(q.Tool), termtext.Line(q.Got))
				if prev == nil {
					fmt.Fprintln(e.stdout, "  (pinned in an earlier run: the previous definition is not kept)")
					b, _ := json.MarshalIndent(def, "  ", "  ")
					fmt.Fprintf(e.stdout, "  new definition:\n  %s\n", termtext.Block(string(jsonSafe(b))))
					continue
				}
				fmt.Fprintln(e.stdout, termtext.Block(cmp.Diff(prev, def)))
			}
			return nil
		}}
	var hash, as string
	accept := &cobra.Command{Use: "accept SERVER TOOL --hash HASH", Short: "Accept the reviewed definition of a quarantined tool: it is served again", Args: argsErr(cobra.ExactArgs(2)),
		RunE: func(c *cobra.Command, args []string) error {
			if hash == "" {
				return usageErr("pins accept needs --hash: the hash `agentadapter pins diff %s %s` shows for the definition you reviewed", termtext.Line(args[0]), termtext.Line(args[1]))
			}
			if !strings.HasPrefix(hash, "sha256:") {
				hash = "sha256:" + hash
			}
			qs, err := e.quarantines(c, args)
			if err != nil {
				return err
			}
			if len(qs) == 0 {
				return fmt.Errorf("%s/%s is not quarantined (see: agentadapter pins list)", termtext.Line(args[0]), termtext.Line(args[1]))
			}
			q := qs[0]
			// The accept is of the definition the operator read, never of
			// whatever the server sends by the time the command runs.
			if q.Got != hash {
				return fmt.Errorf("%s/%s: %w (agentadapter pins diff %s %s)", termtext.Line(q.Server), termtext.Line(q.Tool), mcpadapter.ErrDefinitionChanged, termtext.Line(q.Server), termtext.Line(q.Tool))
			}
			st, err := e.storeOnly(c.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.Pins().Set(c.Context(), mcpadapter.PinKey(q.Server, q.RemoteName), q.Got); err != nil {
				return err
			}
			rec, _ := json.Marshal(map[string]string{"server": q.Server, "remote": q.RemoteName, "pinned": q.Pinned, "got": q.Got})
			if err := st.Ledger().Write(context.WithoutCancel(c.Context()), &ledger.Record{
				Time: time.Now(), Tool: q.Tool, Source: "cli", Integration: "cli", Outcome: console.OutcomePinAccepted,
				Approval: "approved", Approver: as, Args: rec,
				Message: fmt.Sprintf("server %s, tool %s: pinned %s, new %s", q.Server, q.RemoteName, q.Pinned, q.Got),
			}); err != nil {
				return fmt.Errorf("the definition is accepted, but recording it in the ledger failed: %w", err)
			}
			if f, ok := st.Ledger().(interface{ Flush(context.Context) error }); ok {
				_ = f.Flush(c.Context())
			}
			fmt.Fprintf(e.stdout, "accepted %s/%s at %s\n", termtext.Line(q.Server), termtext.Line(q.Tool), short(q.Got))
			return nil
		}}
	accept.Flags().StringVar(&hash, "hash", "", "the hash of the definition you reviewed (from pins diff)")
	accept.Flags().StringVar(&as, "as", operator(), "who accepts, for the ledger")
	cmd.AddCommand(list, diff, accept)
	return cmd
}

func (e *env) quarantines(c *cobra.Command, args []string) ([]state.Quarantine, error) {
	st, err := e.storeOnly(c.Context())
	if err != nil {
		return nil, err
	}
	defer st.Close()
	qs, err := st.Quarantines(c.Context())
	if err != nil {
		return nil, err
	}
	// A tool is named by SERVER TOOL, SERVER/TOOL, or alone by the name
	// clients call it (everything_echo).
	if len(args) == 1 {
		if server, tool, ok := strings.Cut(args[0], "/"); ok {
			args = []string{server, tool}
		} else if !slices.ContainsFunc(qs, func(q state.Quarantine) bool { return q.Server == args[0] }) {
			name, err := e.toolNamer()
			if err != nil {
				return nil, err
			}
			var out []state.Quarantine
			for _, q := range qs {
				if q.Tool == args[0] || name(q.Server, q.RemoteName) == args[0] {
					out = append(out, q)
				}
			}
			return out, nil
		}
	}
	var out []state.Quarantine
	for _, q := range qs {
		if len(args) > 0 && q.Server != args[0] {
			continue
		}
		if len(args) > 1 && q.Tool != args[1] && q.RemoteName != args[1] {
			continue
		}
		out = append(out, q)
	}
	return out, nil
}

func short(h string) string {
	h = strings.TrimPrefix(h, "sha256:")
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// pinOutput is one row of pins list: the name clients call, where the
// tool comes from, its pin and its state ("ok" or "quarantined", with the
// hash the server now sends in got).
type pinOutput struct {
	Tool       string `json:"tool,omitempty"`
	Server     string `json:"server"`
	RemoteName string `json:"remoteName"`
	Pin        string `json:"pin"`
	State      string `json:"state"`
	Got        string `json:"got,omitempty"`
}

// toolNamer returns the name clients call a server's tool by (the name
// every other command shows: the configuration's prefix and rename
// applied), or "" for a server the configuration does not list. With
// --store and no --config there is no configuration to read, and every
// name is "".
func (e *env) toolNamer() (func(server, remote string) string, error) {
	if e.storeSpec != "" && e.configPath == "" {
		return clientNames(nil), nil
	}
	cfg, err := e.loadConfig("")
	if err != nil {
		return nil, err
	}
	return clientNames(cfg), nil
}

// clientNames returns the name clients call a server's tool by under cfg
// (its prefix and rename), or "" for a server cfg does not list; cfg may be
// nil.
func clientNames(cfg *config.Config) func(server, remote string) string {
	policies := map[string]*config.ServerPolicy{}
	if cfg != nil {
		for _, s := range cfg.Servers {
			if s.Policy != nil {
				policies[s.Name] = s.Policy
			}
		}
	}
	return func(server, remote string) string {
		if len(remote) >= 5 && strings.EqualFold(remote[:5], "ui://") {
			return "" // an MCP App's resource, pinned by its URI: no tool name
		}
		p, ok := policies[server]
		if !ok {
			return ""
		}
		if n, ok := p.Rename[remote]; ok {
			return termtext.Line(n)
		}
		return mcpadapter.LocalName(server, remote, p.Prefix)
	}
}

// cmpOr returns the first of its arguments that is not "".
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
