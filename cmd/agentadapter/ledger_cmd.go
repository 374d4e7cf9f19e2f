package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentadapter/agentadapter/adapter"
)

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
