package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
	"github.com/agentadapter/agentadapter/console"
	"github.com/agentadapter/agentadapter/termtext"
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
		Long: `List the pending tickets (--all: every state), newest last.

With --json, one JSON object a line, with these keys (stable; omitted when
empty): id, tool, state ("pending", "approved", "denied" or "consumed"),
subject, session, runId, callId, scope, args (as the caller sent them; left
out when larger than the store keeps, then argsSize tells the size), argsHash,
argsSize, edited (the arguments an approver substituted), reason (of a
denial), approver, created and expires (RFC 3339).` + storeNote,
		Args: argsErr(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			st, err := e.storeOnly(c.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			var want approval.TicketState
			if !all {
				want = approval.TicketPending
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
				if want == approval.TicketPending && !t.Expires.IsZero() && time.Now().After(t.Expires) {
					continue
				}
				n++
				if e.jsonOut {
					if err := printJSON(e.stdout, newTicketOutput(t), false); err != nil {
						return err
					}
					continue
				}
				// A model wrote the arguments and a client the subject:
				// cut them, then escape (so no escape is cut in two).
				args := termtext.Line(cut(string(t.Args), 60))
				if t.Args == nil {
					args = fmt.Sprintf("(%d bytes, not kept)", t.ArgsSize)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", termtext.Line(t.ID), termtext.Line(t.Tool), termtext.Line(cut(t.Subject, 40)),
					t.State, t.Created.Format(time.DateTime), args)
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
	if _, ok := st.Tickets().(approval.Editor); !ok {
		return fmt.Errorf("this store cannot approve with edited arguments yet; approve as is, or deny with a reason the caller reads")
	}
	d := &approval.Deferred{Store: st.Tickets()}
	if err := d.ApproveEdited(c.Context(), id, as, args); err != nil {
		return fmt.Errorf("ticket %s: %w (list them with: agentadapter approvals list)", id, err)
	}
	recordDecision(c.Context(), e, st, id, "approved", "", as, args)
	fmt.Fprintf(e.stdout, "approved %s with edited arguments\n", id)
	return nil
}

func (e *env) decide(c *cobra.Command, id string, ok bool, as, reason string) error {
	st, err := e.storeOnly(c.Context())
	if err != nil {
		return err
	}
	defer st.Close()
	d := &approval.Deferred{Store: st.Tickets()}
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
	recordDecision(c.Context(), e, st, id, verb, reason, as, nil)
	fmt.Fprintf(e.stdout, "%s %s\n", verb, id)
	return nil
}

// decisionSource is the Source and Integration of the ledger record of a
// decision taken with approvals approve or deny.
const decisionSource = "cli"

// recordDecision writes the decision on ticket id to the ledger, as the
// console does (Outcome console.OutcomeDecision): every decision is a
// record, whatever the channel. The decision is taken already: a ledger
// failure is reported, not undone.
func recordDecision(ctx context.Context, e *env, st state.Store, id, approval, reason, approver string, args json.RawMessage) {
	ctx = context.WithoutCancel(ctx)
	r := &ledger.Record{Time: time.Now(), Source: decisionSource, Integration: decisionSource,
		Outcome: console.OutcomeDecision, Message: reason, Approval: approval, Approver: approver, Ticket: id}
	if t, err := st.Tickets().Get(ctx, id); err == nil {
		r.CallID, r.RunID, r.Tool, r.Subject = t.CallID, t.RunID, t.Tool, t.Subject
	}
	if args != nil {
		r.Args = ledger.RedactKeys(ledger.DefaultSecretKeys()...)(r.Tool, args)
	}
	err := st.Ledger().Write(ctx, r)
	if f, ok := st.Ledger().(interface{ Flush(context.Context) error }); ok && err == nil {
		// The database stores batch: commit before the process exits.
		fctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err = f.Flush(fctx)
		cancel()
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "agentadapter: the %s decision on %s is taken, but recording it in the ledger failed: %v\n", approval, termtext.Line(id), termtext.Line(err.Error()))
	}
}

// ticketOutput is the --json shape of a ticket in approvals list; its keys
// are documented in the command's help and are kept stable.
type ticketOutput struct {
	ID       string          `json:"id"`
	Tool     string          `json:"tool"`
	State    string          `json:"state"`
	Subject  string          `json:"subject,omitempty"`
	Session  string          `json:"session,omitempty"`
	RunID    string          `json:"runId,omitempty"`
	CallID   string          `json:"callId,omitempty"`
	Scope    string          `json:"scope,omitempty"`
	Args     json.RawMessage `json:"args,omitempty"`
	ArgsHash string          `json:"argsHash"`
	ArgsSize int             `json:"argsSize"`
	Edited   json.RawMessage `json:"edited,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Approver string          `json:"approver,omitempty"`
	Created  time.Time       `json:"created"`
	Expires  *time.Time      `json:"expires,omitempty"`
}

func newTicketOutput(t *approval.Ticket) *ticketOutput {
	o := &ticketOutput{ID: t.ID, Tool: t.Tool, State: t.State.String(), Subject: t.Subject, Session: t.Session,
		RunID: t.RunID, CallID: t.CallID, Scope: string(t.Scope), ArgsHash: t.ArgsHash, ArgsSize: t.ArgsSize,
		Reason: t.Reason, Approver: t.Approver, Created: t.Created.UTC()}
	// A stored value that is not JSON would fail the whole line.
	if json.Valid(t.Args) {
		o.Args = t.Args
	}
	if json.Valid(t.Edited) {
		o.Edited = t.Edited
	}
	if !t.Expires.IsZero() {
		exp := t.Expires.UTC()
		o.Expires = &exp
	}
	return o
}

// cut shortens s to n runes, saying so with an ellipsis.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
