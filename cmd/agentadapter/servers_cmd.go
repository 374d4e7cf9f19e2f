package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/termtext"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/gateway"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
)

func newServersCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "servers", Short: "Server launches: list, diff, accept", Long: `A stdio server's launch (the command resolved to a file and that file's
SHA-256, the arguments, the names of the environment variables the
configuration sets with a hash of each value, the working directory) is
pinned like a tool definition. A launch that is new, or changed since the
one accepted, is not started by serve, call or inspect: it waits until an
operator reviews it (servers diff, or the console's servers page) and
accepts its hash (servers accept, or the console); a running gateway starts
it within a second. "trust": "trusted" for the server in the gateway's own
file accepts its launches too (never from an included client file), and so
does --accept-launches for the launches a command starts now. Every accept
is a ledger record.` + storeNote}
	list := &cobra.Command{Use: "list", Short: "List the configured servers and the state of their launch", Args: argsErr(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			rows, st, err := e.launchRows(c, nil)
			if err != nil {
				return err
			}
			defer st.Close()
			if e.jsonOut {
				return writeJSON(e.stdout, rows)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SERVER\tKIND\tLAUNCH\tHASH\tCOMMAND")
			for _, r := range rows {
				command := ""
				if r.Launch != nil {
					command = r.Launch.Path
					if w := r.Wrapper; w != "" {
						command = "SHELL WRAPPER " + w + ": " + command
					}
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termtext.Line(r.Server), r.Kind, termtext.Line(r.State), short(r.Hash), termtext.Line(command))
			}
			return tw.Flush()
		}}
	diff := &cobra.Command{Use: "diff [SERVER]", Short: "Show the launches waiting for review, against the accepted ones", Args: argsErr(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			rows, st, err := e.launchRows(c, args)
			if err != nil {
				return err
			}
			defer st.Close()
			n := 0
			for _, r := range rows {
				if r.pending == nil {
					continue
				}
				n++
				writeLaunchReview(e.stdout, r.pending)
			}
			if n == 0 {
				fmt.Fprintln(e.stdout, "no launch is waiting for review")
			}
			return nil
		}}
	var hash, as string
	accept := &cobra.Command{Use: "accept SERVER --hash HASH", Short: "Accept the reviewed launch of a server: it is started", Args: argsErr(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			if hash == "" {
				return usageErr("servers accept needs --hash: the hash `agentadapter servers diff %s` shows for the launch you reviewed", args[0])
			}
			if !strings.HasPrefix(hash, "sha256:") {
				hash = "sha256:" + hash
			}
			rows, st, err := e.launchRows(c, args)
			if err != nil {
				return err
			}
			defer st.Close()
			if len(rows) == 0 {
				return usageErr("no server %q is configured (see: agentadapter servers list)", termtext.Line(args[0]))
			}
			r := rows[0]
			switch {
			case r.Err != "":
				return fmt.Errorf("server %s: %s", termtext.Line(r.Server), termtext.Line(r.Err))
			case r.Kind != "stdio":
				return usageErr("server %s is a %s server: it has no launch to accept", termtext.Line(r.Server), r.Kind)
			case r.pending == nil:
				if r.Hash != hash {
					return fmt.Errorf("server %s: %w", termtext.Line(r.Server), mcpadapter.ErrLaunchChanged)
				}
				fmt.Fprintf(e.stdout, "the launch of %s is already accepted (%s)\n", termtext.Line(r.Server), short(r.Hash))
				return nil
			}
			if err := gateway.AcceptLaunch(c.Context(), st, st.Ledger(), r.pending, hash, as, "cli"); err != nil {
				if errors.Is(err, mcpadapter.ErrLaunchChanged) {
					return fmt.Errorf("server %s: the launch changed since you reviewed it; review again (agentadapter servers diff %s)", termtext.Line(r.Server), termtext.Line(r.Server))
				}
				return err
			}
			fmt.Fprintf(e.stdout, "accepted the launch of %s at %s; a running gateway starts it within a second\n", termtext.Line(r.Server), short(hash))
			return nil
		}}
	accept.Flags().StringVar(&hash, "hash", "", "the hash of the launch you reviewed (from servers diff)")
	accept.Flags().StringVar(&as, "as", operator(), "who accepts, for the ledger")
	cmd.AddCommand(list, diff, accept)
	return cmd
}

// launchRow is one configured server in servers list.
type launchRow struct {
	Server string `json:"server"`
	Kind   string `json:"kind"`
	// State is "accepted", "pending review (new)", "pending review
	// (changed)", "disabled", "remote" or "error".
	State   string             `json:"state"`
	Hash    string             `json:"hash,omitempty"`
	Pinned  string             `json:"pinned,omitempty"`
	Wrapper string             `json:"shell_wrapper,omitempty"`
	Launch  *mcpadapter.Launch `json:"launch,omitempty"`
	Err     string             `json:"error,omitempty"`
	pending *mcpadapter.PendingLaunch
}

// launchRows reviews the launch of every configured server (only) named
// in args; the caller closes the store.
func (e *env) launchRows(c *cobra.Command, args []string) ([]launchRow, state.Store, error) {
	cfg, err := e.loadConfig("")
	if err != nil {
		return nil, nil, err
	}
	st, err := e.openStore(c.Context(), cfg)
	if err != nil {
		return nil, nil, err
	}
	var rows []launchRow
	for _, s := range cfg.Servers {
		if len(args) > 0 && s.Name != args[0] {
			continue
		}
		r := reviewRow(c, st, s)
		if r.pending != nil && gateway.TrustsLaunch(cfg, s) {
			// Accepted (and recorded) by the gateway when it starts it.
			r.State, r.pending = "trusted in "+cfg.File, nil
		}
		rows = append(rows, r)
	}
	return rows, st, nil
}

func reviewRow(c *cobra.Command, st state.Store, s *config.Server) launchRow {
	r := launchRow{Server: s.Name, Kind: s.Kind}
	if s.Kind != "stdio" {
		r.State = "remote"
		return r
	}
	p, err := gateway.ReviewLaunch(c.Context(), st, s)
	if err != nil {
		r.State, r.Err = "error", err.Error()
		return r
	}
	if p == nil {
		l, err := gateway.LaunchOf(s)
		if err != nil {
			r.State, r.Err = "error", err.Error()
			return r
		}
		r.State, r.Launch, r.Hash, r.Pinned, r.Wrapper = "accepted", gateway.MaskLaunch(l), l.Hash(), l.Hash(), l.ShellWrapper()
	} else {
		r.State, r.Launch, r.Hash, r.Pinned, r.Wrapper, r.pending = "pending review (new)", p.Launch, p.Hash, p.Pinned, p.Launch.ShellWrapper(), p
		if p.Pinned != "" {
			r.State = "pending review (changed)"
		}
	}
	if s.Disabled {
		r.State = "disabled"
	}
	return r
}

// writeLaunchReview prints what an operator reviews before accepting a
// launch: every field, the previous value beside a changed one, the shell
// wrapper first. Every value came from a file others may write: each is
// printed through termtext.
func writeLaunchReview(w io.Writer, p *mcpadapter.PendingLaunch) {
	l := p.Launch
	state := "new launch"
	if p.Pinned != "" {
		state = "changed launch (accepted: " + short(p.Pinned) + ")"
	}
	fmt.Fprintf(w, "%s: %s\n", termtext.Line(p.Server), state)
	if wr := l.ShellWrapper(); wr != "" {
		fmt.Fprintf(w, "  !! SHELL WRAPPER: %s runs a command string; read it whole\n", termtext.Line(wr))
	}
	prev := p.Previous
	field := func(name, now, was string, known bool) {
		switch {
		case !known || p.Pinned == "" || now == was:
			fmt.Fprintf(w, "  %-9s %s\n", name+":", now)
		default:
			fmt.Fprintf(w, "- %-9s %s\n+ %-9s %s\n", name+":", was, name+":", now)
		}
	}
	var was mcpadapter.Launch
	if prev != nil {
		was = *prev
	}
	known := prev != nil
	field("command", termtext.Line(l.Command), termtext.Line(was.Command), known)
	field("path", termtext.Line(l.Path), termtext.Line(was.Path), known)
	field("sha256", strings.TrimPrefix(l.FileHash, "sha256:"), strings.TrimPrefix(was.FileHash, "sha256:"), known)
	field("args", quoteArgs(l.Args), quoteArgs(was.Args), known)
	field("env", envNames(l.Env), envNames(was.Env), known)
	field("cwd", termtext.Line(l.Dir), termtext.Line(was.Dir), known)
	if p.Pinned != "" && !known {
		fmt.Fprintln(w, "  (the accepted launch is not in the ledger: only the new one is shown)")
	}
	fmt.Fprintf(w, "  hash:     %s\n  accept:   agentadapter servers accept %s --hash %s\n\n", p.Hash, termtext.Line(p.Server), p.Hash)
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = termtext.Line(fmt.Sprintf("%q", a))
	}
	return "[" + strings.Join(q, " ") + "]"
}

// envNames lists the variables with a short hash of each value: a changed
// value shows without the value.
func envNames(env []mcpadapter.LaunchEnv) string {
	out := make([]string, 0, len(env))
	for _, v := range env {
		out = append(out, termtext.Line(v.Name)+"=<"+short(v.ValueHash)+">")
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}
