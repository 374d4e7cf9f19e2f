package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
)

const storeNote = `
These commands work on the store of the configuration (--config) or the one
given with --store, so they reach a running gateway from another process
when the store is shared (sqlite:PATH, the default).`

func operator() string {
	if u := os.Getenv("USER"); u != "" {
		return "operator:" + u
	}
	return "operator"
}

func newApprovalsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "approvals", Short: "List and decide calls awaiting approval", Long: "List, approve and deny the approval tickets of calls held by policy." + storeNote}
	var all bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List pending tickets (--all: every state)",
		Args:  argsErr(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			st, err := e.storeOnly(c.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			var want adapter.TicketState
			if !all {
				want = adapter.TicketPending
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			if !e.jsonOut {
				fmt.Fprintln(tw, "TICKET\tTOOL\tSUBJECT\tSTATE\tCREATED\tARGS")
			}
			n := 0
			for t, err := range st.Tickets().List(c.Context(), want) {
				if err != nil {
					return err
				}
				if want == adapter.TicketPending && !t.Expires.IsZero() && time.Now().After(t.Expires) {
					continue
				}
				n++
				if e.jsonOut {
					b, _ := json.Marshal(t)
					fmt.Fprintln(e.stdout, string(b))
					continue
				}
				args := string(t.Args)
				if len(args) > 60 {
					args = args[:60] + "…"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Tool, t.Subject, t.State, t.Created.Format(time.DateTime), args)
			}
			if !e.jsonOut {
				if n == 0 {
					fmt.Fprintln(e.stdout, "no tickets")
					return nil
				}
				tw.Flush()
			}
			return nil
		},
	}
	list.Flags().BoolVar(&all, "all", false, "every ticket, decided ones too")
	var as, reason, edited string
	approve := &cobra.Command{
		Use:   "approve TICKET [--args JSON]",
		Short: "Approve a ticket (with --args: edited arguments): the same call, made again, runs once",
		Long: `Approve a ticket: the call, made again with the same arguments, runs once.
With --args, approve it with edited arguments instead: the call runs with
those (validated against the tool's input schema again) and the ledger
records them as the arguments that ran.`,
		Args: argsErr(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			if edited != "" {
				raw, err := readArg(edited, e.stdin)
				if err != nil {
					return usageErr("--args: %v", err)
				}
				return e.decideEdited(c, args[0], as, raw)
			}
			return e.decide(c, args[0], true, as, "")
		},
	}
	approve.Flags().StringVar(&as, "as", operator(), "who approves, for the ledger")
	approve.Flags().StringVar(&edited, "args", "", "approve with these arguments instead (JSON, - for stdin, @FILE)")
	deny := &cobra.Command{
		Use:   "deny TICKET --reason TEXT",
		Short: "Deny a ticket; the caller reads the reason",
		Args:  argsErr(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			if reason == "" {
				return usageErr("deny needs --reason: the caller (a model, often) reads it")
			}
			return e.decide(c, args[0], false, as, reason)
		},
	}
	deny.Flags().StringVar(&as, "as", operator(), "who denies, for the ledger")
	deny.Flags().StringVar(&reason, "reason", "", "why (shown to the caller)")
	cmd.AddCommand(list, approve, deny)
	return cmd
}

func (e *env) decideEdited(c *cobra.Command, id, as string, args json.RawMessage) error {
	st, err := e.storeOnly(c.Context())
	if err != nil {
		return err
	}
	defer st.Close()
	if _, ok := st.Tickets().(adapter.TicketEditor); !ok {
		return fmt.Errorf("this store cannot approve with edited arguments yet; approve as is, or deny with a reason the caller reads")
	}
	d := &adapter.Deferred{Store: st.Tickets()}
	if err := d.ApproveEdited(c.Context(), id, as, args); err != nil {
		return fmt.Errorf("ticket %s: %w (list them with: agentadapter approvals list)", id, err)
	}
	fmt.Fprintf(e.stdout, "approved %s with edited arguments\n", id)
	return nil
}

func (e *env) decide(c *cobra.Command, id string, ok bool, as, reason string) error {
	st, err := e.storeOnly(c.Context())
	if err != nil {
		return err
	}
	defer st.Close()
	d := &adapter.Deferred{Store: st.Tickets()}
	if ok {
		err = d.Approve(c.Context(), id, as)
	} else {
		err = d.Deny(c.Context(), id, reason, as)
	}
	if err != nil {
		return fmt.Errorf("ticket %s: %w (list them with: agentadapter approvals list)", id, err)
	}
	verb := "approved"
	if !ok {
		verb = "denied"
	}
	fmt.Fprintf(e.stdout, "%s %s\n", verb, id)
	return nil
}

func newLedgerCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "ledger", Short: "Query, follow and export the call ledger", Long: "Every call the gateway (or call) made, one record each." + storeNote}
	var q adapter.LedgerQuery
	var since time.Duration
	var follow bool
	var out string
	addFilters := func(c *cobra.Command) {
		f := c.Flags()
		f.StringVar(&q.Tool, "tool", "", "only this tool")
		f.StringVar(&q.Subject, "subject", "", "only this caller")
		f.StringVar(&q.Outcome, "outcome", "", "only this outcome: ok or an error kind")
		f.StringVar(&q.Run, "run", "", "only this run id")
		f.DurationVar(&since, "since", 0, "only records this recent (1h, 30m)")
		f.IntVar(&q.Limit, "limit", 0, "at most this many records")
	}
	print := func(c *cobra.Command, jsonl bool) error {
		st, err := e.storeOnly(c.Context())
		if err != nil {
			return err
		}
		defer st.Close()
		if since > 0 {
			q.Since = time.Now().Add(-since)
		}
		w := bufio.NewWriter(e.stdout)
		if out != "" {
			f, err := os.Create(out)
			if err != nil {
				return err
			}
			defer f.Close()
			w = bufio.NewWriter(f)
		}
		defer w.Flush()
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		if !jsonl {
			fmt.Fprintln(tw, "TIME\tTOOL\tSUBJECT\tOUTCOME\tAPPROVAL\tDURATION\tCALL")
		}
		for {
			var batch []adapter.Record
			for r, err := range st.Records(c.Context(), q) {
				if err != nil {
					return err
				}
				batch = append(batch, r)
			}
			if q.Newest {
				// tail: the last records, printed oldest first, then follow.
				slices.Reverse(batch)
				q.Newest, q.Limit = false, 0
			}
			for _, r := range batch {
				q.After = max(q.After, r.Seq)
				if jsonl {
					b, _ := json.Marshal(r)
					fmt.Fprintln(w, string(b))
				} else {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Time.Format(time.DateTime), r.Tool, r.Subject, r.Outcome, r.Approval, r.Duration.Round(time.Microsecond), r.CallID)
				}
			}
			tw.Flush()
			w.Flush()
			if !follow {
				return nil
			}
			select {
			case <-c.Context().Done():
				return nil
			case <-time.After(time.Second):
			}
		}
	}
	query := &cobra.Command{Use: "query", Short: "Print matching records (a table, or JSONL with --json)", Args: argsErr(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error { return print(c, e.jsonOut) }}
	addFilters(query)
	tail := &cobra.Command{Use: "tail", Short: "Print the latest records; -f follows new ones", Args: argsErr(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			q.Newest = true
			if q.Limit == 0 {
				q.Limit = 20
			}
			return print(c, e.jsonOut)
		}}
	addFilters(tail)
	tail.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new records")
	export := &cobra.Command{Use: "export", Short: "Write matching records as JSONL (--out FILE, default stdout)", Args: argsErr(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error { return print(c, true) }}
	addFilters(export)
	export.Flags().StringVarP(&out, "out", "o", "", "write to this file")
	verify := &cobra.Command{Use: "verify", Short: "Check the ledger's hash chain: names the first record edited, inserted or deleted", Args: argsErr(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			st, err := e.storeOnly(c.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.Verify(c.Context()); err != nil {
				return fmt.Errorf("the ledger does not verify: %w", err)
			}
			fmt.Fprintln(e.stdout, "the ledger verifies: no record edited, inserted or deleted")
			return nil
		}}
	cmd.AddCommand(query, tail, export, verify)
	return cmd
}

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
