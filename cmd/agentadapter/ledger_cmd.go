package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/termtext"
)

func newLedgerCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "ledger", Short: "Query, follow and export the call ledger", Long: "Every call the gateway (or call) made, one record each." + storeNote}
	var q ledger.Query
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
			var batch []ledger.Record
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
					// C1 and bidi runes as \uXXXX: the lines may reach a
					// terminal, and decode to the same record.
					if err := printJSON(w, r, false); err != nil {
						return err
					}
				} else {
					// A tool name, a subject and a call id can be a caller's or an
					// upstream's text.
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Time.Format(time.DateTime), termtext.Line(r.Tool), termtext.Line(r.Subject),
						termtext.Line(r.Outcome), termtext.Line(r.Approval), r.Duration.Round(time.Microsecond), termtext.Line(r.CallID))
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
	head := &cobra.Command{Use: "head", Short: "Print the chain's head (SEQ:HASH) to keep where the store's writers cannot reach", Long: `Print the ledger's chain head: the sequence number and hash of its last
record, as SEQ:HASH (--json: {"seq":N,"hash":"…","at":"…"}). Keep it
somewhere the store's writers cannot reach (a remote log, a ticket): a
later "ledger verify --head SEQ:HASH" fails if the tail was cut or the
ledger reset since, which the chain alone cannot show.`, Args: argsErr(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			st, err := e.storeOnly(c.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			h, err := st.Head(c.Context())
			if err != nil {
				return fmt.Errorf("reading the ledger's head: %w", err)
			}
			if e.jsonOut {
				return printJSON(e.stdout, headOutput{Seq: h.Seq, Hash: h.Hash, At: time.Now().UTC()}, false)
			}
			fmt.Fprintln(e.stdout, h)
			return nil
		}}
	var kept string
	verify := &cobra.Command{Use: "verify [FILE]", Short: "Check the ledger's hash chain (or an exported FILE's): names the first record edited, inserted or deleted",
		Long: `Check the ledger's hash chain, or, given FILE (the output of "ledger
export"), that file's, offline: the first record edited, inserted or
deleted is named. The chain alone cannot show a cut tail or a reset
ledger; --head SEQ:HASH (printed earlier by "ledger head", or @FILE
holding it) also checks that the chain still holds that record with that
hash at that place.`,
		Args: argsErr(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			var want ledger.Head
			if kept != "" {
				h, err := readHead(kept)
				if err != nil {
					return usageErr("--head: %v", err)
				}
				want = h
			}
			out := verifyOutput{Verified: true}
			if want != (ledger.Head{}) {
				out.Kept = &want
			}
			var err error
			if len(args) == 1 {
				out.File = args[0]
				var f *os.File
				if f, err = os.Open(args[0]); err != nil {
					return err
				}
				defer f.Close()
				var last ledger.Head
				last, err = ledger.VerifyJSONL(f, want)
				if err == nil {
					out.Last = &last
				}
			} else {
				st, oerr := e.storeOnly(c.Context())
				if oerr != nil {
					return oerr
				}
				defer st.Close()
				err = st.VerifyHead(c.Context(), want)
			}
			what := "the ledger"
			if out.File != "" {
				what = out.File
			}
			if err != nil {
				var ce *ledger.ChainError
				if !errors.As(err, &ce) {
					return fmt.Errorf("verifying %s: %w", what, err)
				}
				if e.jsonOut {
					out.Verified, out.Error = false, err.Error()
					out.Seq, out.Problem, out.CallID = ce.Seq, string(ce.Problem), ce.CallID
					_ = printJSON(e.stdout, out, false)
				}
				return fmt.Errorf("%s does not verify: %w", what, err)
			}
			if e.jsonOut {
				return printJSON(e.stdout, out, false)
			}
			fmt.Fprintf(e.stdout, "%s verifies: no record edited, inserted or deleted\n", termtext.Line(what))
			if out.Kept != nil {
				fmt.Fprintf(e.stdout, "it holds the kept head %s: its tail was not cut, nor the ledger reset\n", want)
			} else {
				fmt.Fprintln(e.stdout, "a cut tail or a reset shows only against a kept head: see ledger head, ledger verify --head")
			}
			if out.Last != nil {
				fmt.Fprintf(e.stdout, "its last record: %s\n", *out.Last)
			}
			return nil
		}}
	verify.Flags().StringVar(&kept, "head", "", "a head kept earlier (SEQ:HASH, its JSON, or @FILE): fail unless the chain still holds it")
	cmd.AddCommand(query, tail, export, head, verify)
	return cmd
}

// headOutput is the --json shape of ledger head.
type headOutput struct {
	Seq  int64  `json:"seq"`
	Hash string `json:"hash"`
	// At is when the head was read, for the log that keeps it.
	At time.Time `json:"at"`
}

// verifyOutput is the --json shape of ledger verify.
type verifyOutput struct {
	Verified bool `json:"verified"`
	// File is the exported file verified; empty for the store's ledger.
	File string `json:"file,omitempty"`
	// Kept is the head given with --head.
	Kept *ledger.Head `json:"kept,omitempty"`
	// Last is the last point of a file's chain.
	Last *ledger.Head `json:"last,omitempty"`
	// Error, Seq, Problem and CallID say where the chain broke.
	Error   string `json:"error,omitempty"`
	Seq     int64  `json:"seq,omitempty"`
	Problem string `json:"problem,omitempty"`
	CallID  string `json:"call_id,omitempty"`
}

// readHead reads --head: a head, or @FILE holding one (as ledger head
// wrote it).
func readHead(s string) (ledger.Head, error) {
	if name, ok := strings.CutPrefix(s, "@"); ok {
		f, err := os.Open(name)
		if err != nil {
			return ledger.Head{}, err
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, 4096))
		if err != nil {
			return ledger.Head{}, err
		}
		s = string(b)
	}
	return ledger.ParseHead(s)
}
