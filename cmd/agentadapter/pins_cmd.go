package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"

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
			if e.jsonOut {
				b, _ := json.MarshalIndent(map[string]any{"pins": pins, "quarantined": qs}, "", "  ")
				fmt.Fprintln(e.stdout, string(b))
				return nil
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TOOL\tPIN\tSTATE")
			for _, k := range sortedKeys(pins) {
				stateS := "ok"
				if q, ok := quar[k]; ok && q.Got != pins[k] {
					stateS = "quarantined: changed to " + short(q.Got)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", k, short(pins[k]), stateS)
			}
			return tw.Flush()
		}}
	diff := &cobra.Command{Use: "diff [SERVER [TOOL]]", Short: "Show what changed in quarantined definitions", Args: argsErr(cobra.MaximumNArgs(2)),
		RunE: func(c *cobra.Command, args []string) error {
			qs, err := e.quarantines(c, args)
			if err != nil {
				return err
			}
			if len(qs) == 0 {
				fmt.Fprintln(e.stdout, "no quarantined tools")
				return nil
			}
			for _, q := range qs {
				var prev, def any
				_ = json.Unmarshal(q.Previous, &prev)
				_ = json.Unmarshal(q.Definition, &def)
				fmt.Fprintf(e.stdout, "%s/%s: pinned %s, now %s\n", q.Server, q.Tool, short(q.Pinned), short(q.Got))
				if prev == nil {
					fmt.Fprintln(e.stdout, "  (pinned in an earlier run: the previous definition is not kept)")
					b, _ := json.MarshalIndent(def, "  ", "  ")
					fmt.Fprintf(e.stdout, "  new definition:\n  %s\n", b)
					continue
				}
				fmt.Fprintln(e.stdout, cmp.Diff(prev, def))
			}
			return nil
		}}
	accept := &cobra.Command{Use: "accept SERVER TOOL", Short: "Accept a changed definition: the tool is served again", Args: argsErr(cobra.ExactArgs(2)),
		RunE: func(c *cobra.Command, args []string) error {
			qs, err := e.quarantines(c, args)
			if err != nil {
				return err
			}
			if len(qs) == 0 {
				return fmt.Errorf("%s/%s is not quarantined (see: agentadapter pins list)", args[0], args[1])
			}
			st, err := e.storeOnly(c.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			q := qs[0]
			if err := st.Pins().Set(c.Context(), mcpadapter.PinKey(q.Server, q.RemoteName), q.Got); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "accepted %s/%s at %s\n", q.Server, q.Tool, short(q.Got))
			return nil
		}}
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
