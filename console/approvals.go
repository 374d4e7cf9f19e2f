package console

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/termtext"
)

// ticketView is one pending ticket as the page shows it.
type ticketView struct {
	ID, Tool, Server, Remote   string
	Subject, Run, Call         string
	Session, Scope             string
	TooLarge                   int    // the size of arguments too large to keep
	Args                       string // pretty, secrets masked
	Description                string
	Annotations                []string
	Schema                     string
	Created, Expires           time.Time
	Waited, ExpiresIn          string
	Known, Editable, Truncated bool
	Always                     bool   // standing decisions are allowed
	Why                        string // why the call was held (Options.Why)
}

// What a card shows at most of the arguments, of the tool's description
// and of its input schema: an upstream's megabyte description is not
// repeated on every card (nor on every live update of the page).
const (
	maxShownArgs        = 16 << 10
	maxShownDescription = 2 << 10
	maxShownSchema      = 8 << 10
)

func (c *Console) view(t *approval.Ticket, now time.Time) ticketView {
	// Every text from a caller, a model or an upstream is shown with its
	// controls and bidi overrides escaped (html/template escapes HTML, not
	// a U+202E that reverses what the operator reads).
	v := ticketView{
		ID: termtext.Line(t.ID), Tool: termtext.Line(t.Tool), Subject: termtext.Line(t.Subject),
		Run: termtext.Line(t.RunID), Call: termtext.Line(t.CallID),
		Session: termtext.Line(t.Session), Scope: string(t.Scope),
		Created: t.Created, Expires: t.Expires,
		Waited: roughDuration(now.Sub(t.Created)),
	}
	if !t.Expires.IsZero() {
		v.ExpiresIn = roughDuration(t.Expires.Sub(now))
	}
	v.Always = c.opts.Standing != nil && c.opts.Standing.Allows(t.Tool)
	if c.opts.Why != nil {
		v.Why = termtext.Line(truncate(c.opts.Why(t), maxShownDescription))
	}
	if t.Args == nil && t.ArgsSize > 0 {
		v.TooLarge = t.ArgsSize
	} else {
		v.Args = pretty(c.redact(t.Tool, t.Args))
	}
	if len(v.Args) > maxShownArgs {
		v.Args, v.Truncated = clip(v.Args, maxShownArgs), true
	}
	v.Args = termtext.Block(v.Args)
	if spec := c.spec(t.Tool); spec != nil {
		v.Known = true
		v.Server, v.Remote = termtext.Line(spec.Source.Server), termtext.Line(spec.Source.RemoteName)
		v.Description = termtext.Block(truncate(spec.Description, maxShownDescription))
		v.Annotations = annotationList(spec.Annotations)
		if spec.InputSchema != nil {
			b, _ := json.MarshalIndent(spec.InputSchema, "", "  ")
			v.Schema = termtext.Block(truncate(string(b), maxShownSchema))
		}
		v.Editable = spec.InputSchema != nil && v.TooLarge == 0 && c.canEdit()
	}
	return v
}

func (c *Console) spec(tool string) *adapter.Spec {
	if c.opts.Tools == nil {
		return nil
	}
	s, ok := c.opts.Tools.Lookup(tool)
	if !ok {
		return nil
	}
	return s
}

func annotationList(a adapter.Annotations) []string {
	var out []string
	if a.ReadOnly {
		out = append(out, "read-only")
	}
	if a.IsDestructive() {
		out = append(out, "destructive")
	}
	if a.Idempotent {
		out = append(out, "idempotent")
	}
	if a.IsOpenWorld() {
		out = append(out, "open-world")
	}
	return out
}

// pretty indents JSON for a person, without json's \u003c escapes (the
// template escapes for HTML).
func pretty(b json.RawMessage) string { return readable(b, "  ") }

func readable(b json.RawMessage, indent string) string {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return string(b)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if enc.Encode(v) != nil {
		return string(b)
	}
	return strings.TrimSuffix(out.String(), "\n")
}

func roughDuration(d time.Duration) string {
	neg := d < 0
	if neg {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		s = fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		s = fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	default:
		s = fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	if neg {
		return "-" + s
	}
	return s
}

// maxPending bounds the tickets listed on one page.
const maxPending = 500

// pending lists the pending tickets, newest first.
func (c *Console) pending(ctx context.Context) ([]ticketView, error) {
	if c.opts.Approvals == nil {
		return nil, nil
	}
	var ts []*approval.Ticket
	for t, err := range c.opts.Approvals.Pending(ctx) {
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	slices.SortStableFunc(ts, func(a, b *approval.Ticket) int { return b.Created.Compare(a.Created) })
	if len(ts) > maxPending {
		ts = ts[:maxPending]
	}
	now := c.now()
	out := make([]ticketView, 0, len(ts))
	for _, t := range ts {
		if !t.Expires.IsZero() && now.After(t.Expires) {
			continue
		}
		out = append(out, c.view(t, now))
	}
	return out, nil
}

func (c *Console) approvalsPage(w http.ResponseWriter, r *http.Request) {
	c.showApprovals(w, r, http.StatusOK, c.noticeOf(r), "")
}

// noticeOf reads the outcome of the previous action from the redirect's
// query (ticket ids and verbs only: no secrets travel in URLs). The query
// is only a pointer: the notice is shown when the ticket it names was
// decided that way by this operator (or, for a revocation, the tool is
// one of the catalog's with no standing decision left), and it quotes the
// store, not the URL, so a link cannot make the page say what did not
// happen.
func (c *Console) noticeOf(r *http.Request) string {
	q := r.URL.Query()
	done := q.Get("done")
	if done == "revoked" {
		tool := q.Get("tool")
		if c.spec(tool) == nil || c.opts.Standing == nil {
			return ""
		}
		for _, rule := range c.opts.Standing.Rules() {
			if rule.Tool == tool {
				return ""
			}
		}
		return "Revoked the standing decision for " + tool + "; its calls are asked for again."
	}
	want := map[string]approval.TicketState{
		"approved": approval.TicketApproved, "edited": approval.TicketApproved, "approved-always": approval.TicketApproved,
		"denied": approval.TicketDenied, "denied-always": approval.TicketDenied,
	}
	state, ok := want[done]
	op := OperatorFromContext(r.Context())
	if !ok || c.opts.Approvals == nil || op == nil {
		return ""
	}
	t, err := c.opts.Approvals.Ticket(r.Context(), q.Get("ticket"))
	if err != nil || t.Approver != op.Name {
		return ""
	}
	// The caller's retry may have used the ticket up already; a denial
	// always has a reason, an approval none.
	if t.State == approval.TicketConsumed {
		t.State = approval.TicketApproved
		if t.Reason != "" {
			t.State = approval.TicketDenied
		}
	}
	if t.State != state {
		return ""
	}
	switch done {
	case "approved":
		return "Approved " + t.ID + "."
	case "edited":
		return "Approved " + t.ID + " with edited arguments."
	case "denied":
		return "Denied " + t.ID + "."
	case "approved-always":
		return "Approved " + t.ID + "; this tool will be approved for this requester from now on."
	default:
		return "Denied " + t.ID + "; this tool will be denied for this requester from now on."
	}
}

func (c *Console) showApprovals(w http.ResponseWriter, r *http.Request, status int, notice, errMsg string) {
	p := c.newPage(r, "approvals", "Pending approvals")
	p.Notice, p.Error = notice, errMsg
	p.ApprovalsOff = c.opts.Approvals == nil
	ts, err := c.pending(r.Context())
	if err != nil {
		c.logger.Error("console: listing tickets", "err", err)
		p.Error = "The ticket store could not be read; see the server log."
		status = http.StatusInternalServerError
	}
	p.Tickets = ts
	p.Standing = c.standingViews()
	c.render(w, r, status, "approvals", p)
}

// standingView is one standing decision on the approvals page.
type standingView struct {
	N                                int
	Tool, Subject, Verdict, Approver string
	Reason, When                     string
}

func (c *Console) standingViews() []standingView {
	if c.opts.Standing == nil {
		return nil
	}
	var out []standingView
	for i, r := range c.opts.Standing.Rules() {
		out = append(out, standingView{
			N: i, Tool: r.Tool, Subject: r.Subject, Verdict: r.Verdict.String(), Approver: r.Approver,
			Reason: r.Reason, When: r.Created.UTC().Format("2006-01-02 15:04:05"),
		})
	}
	return out
}

// revokeStanding revokes a standing decision; revoking is always allowed,
// whatever the policy now says of taking them.
func (c *Console) revokeStanding(w http.ResponseWriter, r *http.Request) {
	op := OperatorFromContext(r.Context())
	if c.opts.Standing == nil {
		http.Error(w, "console: standing decisions are not configured", http.StatusNotFound)
		return
	}
	tool, subject := r.PostForm.Get("tool"), r.PostForm.Get("subject")
	if r.PostForm.Get("action") != "revoke" || tool == "" {
		http.Error(w, "console: unknown action", http.StatusBadRequest)
		return
	}
	ok, err := c.opts.Standing.Delete(r.Context(), tool, subject)
	if err != nil {
		c.showApprovals(w, r, http.StatusInternalServerError, "", "The standing decision for "+tool+" could not be revoked, and stays in force: "+truncate(err.Error(), 200))
		return
	}
	if !ok {
		c.showApprovals(w, r, http.StatusConflict, "", "There is no standing decision for "+tool+" (someone may have revoked it already).")
		return
	}
	c.write(r.Context(), &ledger.Record{
		Time: c.now(), Tool: tool, Source: Source, Integration: Source, Subject: subject,
		Outcome: OutcomeStanding, Approval: "revoked", Approver: op.Name,
	})
	seeOther(w, "approvals?done=revoked&tool="+urlQueryEscape(tool))
}

// pendingFragment serves the ticket list alone, for the live page to merge.
func (c *Console) pendingFragment(w http.ResponseWriter, r *http.Request) {
	p := c.newPage(r, "approvals", "")
	ts, err := c.pending(r.Context())
	if err != nil {
		http.Error(w, "console: the ticket store could not be read", http.StatusInternalServerError)
		return
	}
	p.Tickets = ts
	c.render(w, r, http.StatusOK, "pending", p)
}

// maxReason bounds a denial reason; the model reads it.
const maxReason = 1000

func (c *Console) decide(w http.ResponseWriter, r *http.Request) {
	op := OperatorFromContext(r.Context())
	id := r.PostForm.Get("ticket")
	if c.opts.Approvals == nil || id == "" {
		http.Error(w, "console: no ticket", http.StatusBadRequest)
		return
	}
	t, err := c.opts.Approvals.Ticket(r.Context(), id)
	if err != nil {
		c.decisionFailed(w, r, id, err)
		return
	}
	action := r.PostForm.Get("action")
	always := action == "approve-always" || action == "deny-always"
	if always && (c.opts.Standing == nil || !c.opts.Standing.Allows(t.Tool)) {
		c.showApprovals(w, r, http.StatusForbidden, "", "The policy does not allow standing decisions for "+t.Tool+".")
		return
	}
	var done string
	switch action {
	case "approve", "approve-always":
		err, done = c.opts.Approvals.Approve(r.Context(), id, op.Name), "approved"
	case "deny", "deny-always":
		reason := strings.TrimSpace(r.PostForm.Get("reason"))
		if reason == "" {
			reason = "an operator denied the call"
		}
		if len(reason) > maxReason {
			c.showApprovals(w, r, http.StatusBadRequest, "", fmt.Sprintf("The reason is too long (at most %d characters).", maxReason))
			return
		}
		err, done = c.opts.Approvals.Deny(r.Context(), id, reason, op.Name), "denied"
		t.Reason = reason
	default:
		http.Error(w, "console: unknown action", http.StatusBadRequest)
		return
	}
	if err != nil {
		c.decisionFailed(w, r, id, err)
		return
	}
	msg := t.Reason
	if always {
		// Only the operator who won the ticket sets the rule.
		// The rule is for the caller, not the ticket's cap key (which
		// carries the session under ScopeSession).
		rule := approval.StandingRule{Tool: t.Tool, Subject: t.Requester(), Verdict: approval.VerdictApproved, Reason: t.Reason, Approver: op.Name, Created: c.now(), Ticket: t.ID}
		if done == "denied" {
			rule.Verdict = approval.VerdictDenied
		}
		if err := c.opts.Standing.Put(r.Context(), rule); err != nil {
			c.record(r.Context(), t, done, t.Reason, op.Name, nil)
			c.Notify()
			c.showApprovals(w, r, http.StatusConflict, "", "The ticket was "+done+", but the standing decision could not be recorded: "+truncate(err.Error(), 200))
			return
		}
		who := rule.Subject
		if who == "" {
			who = "unauthenticated callers"
		}
		verb := "approve"
		if done == "denied" {
			verb = "deny"
		}
		msg = strings.TrimSpace(fmt.Sprintf("standing: always %s %s for %s. %s", verb, t.Tool, who, t.Reason))
		done += "-always"
		c.write(r.Context(), &ledger.Record{
			Time: rule.Created, Tool: t.Tool, Source: Source, Integration: Source, Subject: rule.Subject,
			Outcome: OutcomeStanding, Approval: rule.Verdict.String(), Approver: op.Name, Message: t.Reason, Ticket: t.ID,
		})
	}
	c.record(r.Context(), t, strings.TrimSuffix(done, "-always"), msg, op.Name, nil)
	c.Notify()
	seeOther(w, "approvals?done="+done+"&ticket="+id)
}

// record writes an operator's decision on a ticket to the ledger.
func (c *Console) record(ctx context.Context, t *approval.Ticket, approval, reason, operator string, args json.RawMessage) {
	r := &ledger.Record{
		Time: c.now(), CallID: t.CallID, RunID: t.RunID, Tool: t.Tool, Source: Source, Integration: Source,
		Subject: t.Subject, Outcome: OutcomeDecision, Message: reason, Approval: approval, Approver: operator, Ticket: t.ID,
	}
	if args != nil {
		r.Args = c.redact(t.Tool, args)
	}
	c.write(ctx, r)
}

// maxFlushWait bounds how long an operator's answer waits for a buffering
// ledger to commit the decision.
const maxFlushWait = 10 * time.Second

func (c *Console) write(ctx context.Context, r *ledger.Record) {
	// The decision is taken: a ledger failure cannot undo it, but it must
	// not pass silently.
	ctx = context.WithoutCancel(ctx)
	if err := c.opts.Ledger.Write(ctx, r); err != nil {
		c.logger.Error("console: recording a decision in the ledger failed", "tool", r.Tool, "ticket", r.Ticket, "approver", r.Approver, "err", err)
		return
	}
	// A ledger that batches (the database stores) commits before the
	// operator is answered, so the page they land on shows the decision.
	if f, ok := c.opts.Ledger.(interface{ Flush(context.Context) error }); ok {
		fctx, cancel := context.WithTimeout(ctx, maxFlushWait)
		defer cancel()
		if err := f.Flush(fctx); err != nil {
			c.logger.Error("console: committing a decision to the ledger failed", "tool", r.Tool, "ticket", r.Ticket, "approver", r.Approver, "err", err)
		}
	}
}

// decisionFailed explains a decision that could not be taken: most often
// another operator decided first.
func (c *Console) decisionFailed(w http.ResponseWriter, r *http.Request, id string, err error) {
	status, msg := http.StatusInternalServerError, "The decision could not be recorded; see the server log."
	var ne notEditable
	switch {
	case errors.As(err, &ne):
		status, msg = http.StatusConflict, string(ne)
	case errors.Is(err, approval.ErrTicketState):
		status = http.StatusConflict
		msg = "Ticket " + id + " was already decided."
		if t, gerr := c.opts.Approvals.Ticket(r.Context(), id); gerr == nil {
			switch t.State {
			case approval.TicketApproved, approval.TicketConsumed:
				if t.Approver != "" {
					msg = fmt.Sprintf("Ticket %s was already approved by %s.", id, t.Approver)
				}
			case approval.TicketDenied:
				msg = fmt.Sprintf("Ticket %s was already denied by %s.", id, t.Approver)
				if t.Reason != "" {
					msg = fmt.Sprintf("Ticket %s was already denied by %s: %s", id, t.Approver, t.Reason)
				}
			}
		}
	case errors.Is(err, approval.ErrTicketExpired):
		status, msg = http.StatusGone, "Ticket "+id+" expired before the decision."
	case errors.Is(err, approval.ErrTicketNotFound):
		status, msg = http.StatusNotFound, "Ticket "+id+" does not exist (any more)."
	default:
		c.logger.Error("console: deciding a ticket", "ticket", id, "err", err)
	}
	c.showApprovals(w, r, status, "", msg)
}

// canEdit reports whether the approvals source can approve with edited
// arguments (a Deferred over a store without adapter.TicketEditor cannot).
func (c *Console) canEdit() bool {
	e, ok := c.opts.Approvals.(interface{ CanApproveEdited() bool })
	return !ok || e.CanApproveEdited()
}

// notEditable explains why a ticket's arguments cannot be edited.
type notEditable string

func (e notEditable) Error() string { return string(e) }

// editView is the argument editor of one ticket.
type editView struct {
	Ticket  ticketView
	Fields  []field
	General []string
}

func (c *Console) editState(r *http.Request, id string) (*approval.Ticket, *jsonschema.Schema, map[string]any, map[string]any, error) {
	t, err := c.opts.Approvals.Ticket(r.Context(), id)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if !c.canEdit() {
		return nil, nil, nil, nil, notEditable(fmt.Sprintf("The ticket store cannot keep edited arguments; approve or deny ticket %s as asked.", id))
	}
	if t.Args == nil && t.ArgsSize > 0 {
		return nil, nil, nil, nil, notEditable(fmt.Sprintf("The arguments of ticket %s (%d bytes) were too large to keep, so they cannot be edited; approve or deny it as asked.", id, t.ArgsSize))
	}
	spec := c.spec(t.Tool)
	if spec == nil || spec.InputSchema == nil {
		return nil, nil, nil, nil, notEditable(fmt.Sprintf("The tool %s is not in the catalog any more, so the arguments of ticket %s cannot be edited.", t.Tool, id))
	}
	var args, shown map[string]any
	d := json.NewDecoder(bytes.NewReader(t.Args))
	d.UseNumber()
	if err := d.Decode(&args); err != nil || args == nil {
		args = map[string]any{}
	}
	d = json.NewDecoder(bytes.NewReader(c.redact(t.Tool, t.Args)))
	d.UseNumber()
	if err := d.Decode(&shown); err != nil || shown == nil {
		shown = map[string]any{}
	}
	return t, spec.InputSchema, args, shown, nil
}

func (c *Console) editPage(w http.ResponseWriter, r *http.Request) {
	if c.opts.Approvals == nil {
		http.Error(w, "console: approval is not configured", http.StatusNotFound)
		return
	}
	id := r.URL.Query().Get("ticket")
	t, s, args, shown, err := c.editState(r, id)
	if err != nil {
		c.decisionFailed(w, r, id, err)
		return
	}
	p := c.newPage(r, "approvals", "Edit arguments")
	p.Edit = &editView{Ticket: c.view(t, c.now()), Fields: buildFields(s, args, shown)}
	c.render(w, r, http.StatusOK, "edit", p)
}

func (c *Console) edit(w http.ResponseWriter, r *http.Request) {
	op := OperatorFromContext(r.Context())
	if c.opts.Approvals == nil {
		http.Error(w, "console: approval is not configured", http.StatusNotFound)
		return
	}
	id := r.PostForm.Get("ticket")
	t, s, args, shown, err := c.editState(r, id)
	if err != nil {
		c.decisionFailed(w, r, id, err)
		return
	}
	edited, fields, general := parseFields(s, buildFields(s, args, shown), r.PostForm, args)
	if edited == nil {
		p := c.newPage(r, "approvals", "Edit arguments")
		p.Edit = &editView{Ticket: c.view(t, c.now()), Fields: fields, General: general}
		p.Error = "The arguments were not approved: correct the fields marked below."
		c.render(w, r, http.StatusUnprocessableEntity, "edit", p)
		return
	}
	if err := c.opts.Approvals.ApproveEdited(r.Context(), id, op.Name, edited); err != nil {
		c.decisionFailed(w, r, id, err)
		return
	}
	c.record(r.Context(), t, "approved", "approved with edited arguments", op.Name, edited)
	c.Notify()
	seeOther(w, "approvals?done=edited&ticket="+id)
}

// events streams a "pending" event whenever the set of pending tickets
// changes, so the page refetches the list (server-sent events).
func (c *Console) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 1000\n\n")
	if err := rc.Flush(); err != nil {
		return
	}
	ctx := r.Context()
	last := ""
	tick := time.NewTicker(c.opts.PollInterval)
	defer tick.Stop()
	keepalive := time.NewTicker(15 * time.Second)
	defer keepalive.Stop()
	for n := 0; ; n++ {
		wake := c.wakeCh()
		fp := c.fingerprint(ctx)
		if fp != last {
			if n > 0 {
				fmt.Fprintf(w, "event: pending\ndata: %d\n\n", n)
				if rc.Flush() != nil {
					return
				}
			}
			last = fp
		}
		select {
		case <-ctx.Done():
			return
		case <-c.done:
			return
		case <-keepalive.C:
			fmt.Fprint(w, ": keepalive\n\n")
			if rc.Flush() != nil {
				return
			}
		case <-tick.C:
		case <-wake:
		}
	}
}

// fingerprint identifies the set of pending tickets.
func (c *Console) fingerprint(ctx context.Context) string {
	if c.opts.Approvals == nil {
		return ""
	}
	var b strings.Builder
	for t, err := range c.opts.Approvals.Pending(ctx) {
		if err != nil {
			return b.String()
		}
		b.WriteString(t.ID)
		b.WriteByte(',')
	}
	return b.String()
}
