package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

type serverView struct {
	Name, Health, Transport, Trust, LastError, LastErrorAt string
	Tools, Quarantined, Reconnects                         int
	Up                                                     bool
}

func (c *Console) serversPage(w http.ResponseWriter, r *http.Request) {
	notice := ""
	if r.URL.Query().Get("done") == "launch" {
		notice = "Accepted the launch: the server starts within a second."
	}
	c.showServers(w, r, http.StatusOK, notice, "")
}

func (c *Console) showServers(w http.ResponseWriter, r *http.Request, status int, notice, errMsg string) {
	p := c.newPage(r, "servers", "Servers")
	p.Notice, p.Error = notice, errMsg
	p.ServersOff = c.opts.Servers == nil
	if c.opts.Servers != nil {
		for _, s := range c.opts.Servers.Servers() {
			v := serverView{Name: s.Name, Transport: s.Transport, Tools: len(s.Tools), Quarantined: len(s.Quarantined), Reconnects: s.Reconnects, Up: s.Connected, Trust: "untrusted"}
			v.Health = "connected"
			if !s.Connected {
				v.Health = "down"
				if s.Err != nil {
					v.Health = "down: " + truncate(s.Err.Error(), 300)
				}
			}
			if s.LastError != nil {
				v.LastError = truncate(s.LastError.Error(), 300)
				v.LastErrorAt = s.LastErrorAt.UTC().Format(time.RFC3339)
			}
			if s.Trusted {
				v.Trust = "trusted"
			}
			p.Servers = append(p.Servers, v)
		}
	}
	if l, ok := c.opts.Servers.(Launches); ok {
		for _, pl := range l.PendingLaunches() {
			p.Launches = append(p.Launches, launchOf(pl))
		}
	}
	c.render(w, r, status, "servers", p)
}

// Launches is the stdio launches waiting for an operator's review: when
// Options.Servers implements it too (the agentadapter gateway's does), the
// servers page shows each pending launch (command, resolved path, file
// hash, arguments, environment names, working directory, a diff against
// the accepted launch, shell wrappers flagged) with a form to accept it.
type Launches interface {
	// PendingLaunches lists the launches waiting, by server.
	PendingLaunches() []mcpadapter.PendingLaunch
	// AcceptLaunch accepts the pending launch of server if its hash is
	// hash (the one the operator reviewed), recording the operator; it
	// fails, wrapping mcpadapter.ErrLaunchChanged, if the launch changed.
	AcceptLaunch(ctx context.Context, server, hash, operator string) error
}

// launchView is one pending launch on the servers page.
type launchView struct {
	Server, Hash, Pinned, Wrapper string
	Changed, NoPrevious           bool
	Parts                         []diffPart
}

func launchOf(pl mcpadapter.PendingLaunch) launchView {
	v := launchView{Server: pl.Server, Hash: pl.Hash, Pinned: pl.Pinned, Changed: pl.Pinned != "", NoPrevious: pl.Pinned != "" && pl.Previous == nil}
	next := pl.Launch
	if next == nil {
		next = &mcpadapter.Launch{}
	}
	v.Wrapper = next.ShellWrapper()
	prev := pl.Previous
	if prev == nil {
		prev = &mcpadapter.Launch{}
	}
	part := func(name, a, b string) {
		lines := lineDiff(a, b)
		if pl.Previous == nil {
			// Nothing to compare with: every field shows as it is.
			lines = nil
			for _, l := range splitLines(b) {
				lines = append(lines, diffLine{" ", l})
			}
		}
		v.Parts = append(v.Parts, diffPart{Name: name, Changed: pl.Previous != nil && a != b, Lines: lines})
	}
	part("Command", prev.Command, next.Command)
	part("Resolved path", prev.Path, next.Path)
	part("File SHA-256", prev.FileHash, next.FileHash)
	part("Arguments", quotedLines(prev.Args), quotedLines(next.Args))
	env := func(l *mcpadapter.Launch) string {
		var b strings.Builder
		for i, e := range l.Env {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(e.Name + " (value " + e.ValueHash + ")")
		}
		return b.String()
	}
	part("Environment (names; values hashed)", env(prev), env(next))
	part("Working directory", prev.Dir, next.Dir)
	return v
}

// quotedLines shows one argument a line, quoted: spaces and empty
// arguments stay visible.
func quotedLines(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%q", a)
	}
	return strings.Join(q, "\n")
}

// launchDecide accepts a pending launch: the form carries the hash of the
// launch the operator reviewed, and the accept fails if it changed since.
// The gateway records the decision in the ledger.
func (c *Console) launchDecide(w http.ResponseWriter, r *http.Request) {
	op := OperatorFromContext(r.Context())
	l, ok := c.opts.Servers.(Launches)
	if !ok {
		http.Error(w, "console: no launches are reviewed here", http.StatusNotFound)
		return
	}
	if r.PostForm.Get("action") != "accept-launch" {
		http.Error(w, "console: unknown action", http.StatusBadRequest)
		return
	}
	server, hash := r.PostForm.Get("server"), r.PostForm.Get("hash")
	if err := l.AcceptLaunch(r.Context(), server, hash, op.Name); err != nil {
		c.logger.Error("console: accepting a launch", "server", server, "err", err)
		msg := "The launch could not be accepted: " + truncate(err.Error(), 300)
		if errors.Is(err, mcpadapter.ErrLaunchChanged) {
			msg = fmt.Sprintf("The launch of %s changed since you reviewed it; review again.", truncate(server, 100))
		}
		c.showServers(w, r, http.StatusConflict, "", msg)
		return
	}
	seeOther(w, "servers?done=launch")
}

// diffLine is one line of a definition diff: " " same, "-" old, "+" new.
type diffLine struct {
	Op, Text string
}

type diffPart struct {
	Name    string
	Changed bool
	Lines   []diffLine
}

type quarantineView struct {
	Server, Tool, Remote, Pinned, Got string
	NoPrevious                        bool
	Parts                             []diffPart
	// KeptBy and KeptAt say who kept this very definition blocked, and
	// when (read back from the ledger, so it outlives restarts).
	KeptBy, KeptAt string
}

func (c *Console) quarantinePage(w http.ResponseWriter, r *http.Request) {
	c.showQuarantine(w, r, http.StatusOK, quarantineNotice(r), "")
}

func quarantineNotice(r *http.Request) string {
	q := r.URL.Query()
	switch q.Get("done") {
	case "accepted":
		return "Accepted the new definition of " + q.Get("tool") + "."
	case "kept":
		return "Kept " + q.Get("tool") + " blocked."
	}
	return ""
}

func (c *Console) showQuarantine(w http.ResponseWriter, r *http.Request, status int, notice, errMsg string) {
	p := c.newPage(r, "quarantine", "Quarantine")
	p.Notice, p.Error = notice, errMsg
	p.ServersOff = c.opts.Servers == nil
	if c.opts.Servers != nil {
		for _, q := range c.opts.Servers.Quarantined() {
			v := quarantineOf(q)
			if rec, ok := c.keptBlocked(r.Context(), &q); ok {
				v.KeptBy, v.KeptAt = rec.Approver, rec.Time.UTC().Format("2006-01-02 15:04:05")
			}
			p.Quarantine = append(p.Quarantine, v)
		}
	}
	if c.opts.LedgerReader != nil {
		for _, outcome := range []string{OutcomePinAccepted, OutcomePinKept} {
			for rec, err := range c.opts.LedgerReader.Query(r.Context(), ledger.Query{Outcome: outcome, Limit: 20, Newest: true}) {
				if err != nil {
					break
				}
				p.PinDecisions = append(p.PinDecisions, recordView{Record: rec, When: rec.Time.UTC().Format("2006-01-02 15:04:05")})
			}
		}
	}
	c.render(w, r, status, "quarantine", p)
}

// maxKeptScan bounds the pin_kept records read for one quarantined tool.
const maxKeptScan = 100

// keptBlocked finds the newest decision to keep q's new definition
// blocked: a pin_kept record of the same server, tool and definition hash.
// The ledger is where the decision lives; the pin store keeps hashes only.
func (c *Console) keptBlocked(ctx context.Context, q *mcpadapter.Quarantine) (ledger.Record, bool) {
	if c.opts.LedgerReader == nil {
		return ledger.Record{}, false
	}
	for rec, err := range c.opts.LedgerReader.Query(ctx, ledger.Query{Outcome: OutcomePinKept, Tool: q.Tool, Newest: true, Limit: maxKeptScan}) {
		if err != nil {
			c.logger.Error("console: reading pin decisions", "err", err)
			break
		}
		var d pinDecision
		if json.Unmarshal(rec.Args, &d) == nil && d.Server == q.Server && d.Got == q.Got {
			return rec, true
		}
	}
	return ledger.Record{}, false
}

func quarantineOf(q mcpadapter.Quarantine) quarantineView {
	v := quarantineView{Server: q.Server, Tool: q.Tool, Remote: q.RemoteName, Pinned: q.Pinned, Got: q.Got, NoPrevious: q.Previous == nil}
	prev := q.Previous
	if prev == nil {
		prev = &mcp.Tool{}
	}
	next := q.Definition
	if next == nil {
		next = &mcp.Tool{}
	}
	part := func(name, a, b string) {
		v.Parts = append(v.Parts, diffPart{Name: name, Changed: a != b, Lines: lineDiff(a, b)})
	}
	part("Title", prev.Title, next.Title)
	part("Description", prev.Description, next.Description)
	part("Input schema", jsonPretty(prev.InputSchema), jsonPretty(next.InputSchema))
	part("Output schema", jsonPretty(prev.OutputSchema), jsonPretty(next.OutputSchema))
	part("Annotations", jsonPretty(prev.Annotations), jsonPretty(next.Annotations))
	return v
}

func jsonPretty(v any) string {
	if v == nil {
		return ""
	}
	if a, ok := v.(*mcp.ToolAnnotations); ok && a == nil {
		return ""
	}
	b, err := json.MarshalIndent(canonicalJSON(v), "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// canonicalJSON round-trips v so maps print with sorted keys and the two
// sides of a diff line up.
func canonicalJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var g any
	if json.Unmarshal(b, &g) != nil {
		return v
	}
	return g
}

// maxDiffLines bounds the quadratic diff; longer texts are shown whole,
// old then new.
const maxDiffLines = 400

// lineDiff is a longest-common-subsequence line diff.
func lineDiff(a, b string) []diffLine {
	if a == b {
		if a == "" {
			return nil
		}
		var out []diffLine
		for _, l := range strings.Split(a, "\n") {
			out = append(out, diffLine{" ", l})
		}
		return out
	}
	x, y := splitLines(a), splitLines(b)
	if len(x) > maxDiffLines || len(y) > maxDiffLines {
		var out []diffLine
		for _, l := range x {
			out = append(out, diffLine{"-", l})
		}
		for _, l := range y {
			out = append(out, diffLine{"+", l})
		}
		return out
	}
	// lcs[i][j] is the LCS length of x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []diffLine
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch {
		case x[i] == y[j]:
			out = append(out, diffLine{" ", x[i]})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, diffLine{"-", x[i]})
			i++
		default:
			out = append(out, diffLine{"+", y[j]})
			j++
		}
	}
	for ; i < len(x); i++ {
		out = append(out, diffLine{"-", x[i]})
	}
	for ; j < len(y); j++ {
		out = append(out, diffLine{"+", y[j]})
	}
	return out
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// pinDecide accepts a quarantined tool's new definition or keeps it
// blocked; either way the operator's decision goes to the ledger.
func (c *Console) pinDecide(w http.ResponseWriter, r *http.Request) {
	op := OperatorFromContext(r.Context())
	if c.opts.Servers == nil {
		http.Error(w, "console: no servers are configured", http.StatusNotFound)
		return
	}
	// got is the hash of the definition the operator reviewed: the
	// decision is about that definition, not whatever is quarantined when
	// the form arrives.
	server, tool, got := r.PostForm.Get("server"), r.PostForm.Get("tool"), r.PostForm.Get("got")
	var q *mcpadapter.Quarantine
	for _, x := range c.opts.Servers.Quarantined() {
		if x.Server == server && x.Tool == tool {
			q = &x
			break
		}
	}
	if q == nil {
		c.showQuarantine(w, r, http.StatusConflict, "", fmt.Sprintf("The tool %s of server %s is not quarantined (any more): someone may have accepted it already.", truncate(tool, 100), truncate(server, 100)))
		return
	}
	if got != q.Got {
		c.showQuarantine(w, r, http.StatusConflict, "", fmt.Sprintf("The definition of %s changed since you reviewed it; review again.", q.Tool))
		return
	}
	rec := c.pinRecord(q, op.Name)
	switch r.PostForm.Get("action") {
	case "accept":
		if err := c.opts.Servers.Accept(server, tool, got); err != nil {
			c.logger.Error("console: accepting a definition", "server", server, "tool", tool, "err", err)
			msg := "The new definition could not be accepted: " + truncate(err.Error(), 300)
			if errors.Is(err, mcpadapter.ErrDefinitionChanged) {
				msg = fmt.Sprintf("The definition of %s changed since you reviewed it; review again.", q.Tool)
			}
			c.showQuarantine(w, r, http.StatusConflict, "", msg)
			return
		}
		rec.Outcome, rec.Approval = OutcomePinAccepted, "approved"
		c.write(r.Context(), rec)
		seeOther(w, "quarantine?done=accepted&tool="+urlQueryEscape(tool))
	case "keep":
		rec.Outcome, rec.Approval = OutcomePinKept, "denied"
		c.write(r.Context(), rec)
		seeOther(w, "quarantine?done=kept&tool="+urlQueryEscape(tool))
	default:
		http.Error(w, "console: unknown action", http.StatusBadRequest)
	}
}
