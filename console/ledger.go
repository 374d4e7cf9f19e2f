package console

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/termtext"
)

// maxLedgerLimit bounds a page or an export.
const maxLedgerLimit = 100000

// timeLayout is what a datetime-local input sends.
const timeLayout = "2006-01-02T15:04"

// query yields the selected records, newest first (oldest first when
// oldest is set), at most Limit of them (DefaultLedgerLimit if unset).
func (c *Console) query(ctx context.Context, q ledger.Query, oldest bool) iter.Seq2[ledger.Record, error] {
	if q.Limit <= 0 {
		q.Limit = DefaultLedgerLimit
	}
	// Newest first, so the limit keeps the latest records; a chain or an
	// export then reads oldest first.
	q.Newest = true
	return func(yield func(ledger.Record, error) bool) {
		var out []ledger.Record
		for r, err := range c.opts.LedgerReader.Query(ctx, q) {
			if err != nil {
				yield(ledger.Record{}, err)
				return
			}
			out = append(out, r)
		}
		if oldest {
			slices.Reverse(out)
		}
		for _, r := range out {
			if !yield(r, nil) {
				return
			}
		}
	}
}

func parseQuery(v url.Values) (ledger.Query, []string) {
	q := ledger.Query{Run: v.Get("run"), Tool: v.Get("tool"), Subject: v.Get("subject"), Outcome: v.Get("outcome"), Ticket: v.Get("ticket")}
	var errs []string
	for _, p := range []struct {
		name string
		t    *time.Time
	}{{"since", &q.Since}, {"until", &q.Until}} {
		if s := v.Get(p.name); s != "" {
			t, err := time.ParseInLocation(timeLayout, s, time.UTC)
			if err != nil {
				t, err = time.Parse(time.RFC3339, s)
			}
			if err != nil {
				errs = append(errs, p.name+": enter a time as YYYY-MM-DDTHH:MM (UTC).")
				continue
			}
			*p.t = t
		}
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLedgerLimit {
			errs = append(errs, "limit: a number from 1 to "+strconv.Itoa(maxLedgerLimit)+".")
		} else {
			q.Limit = n
		}
	}
	return q, errs
}

// recordView is one ledger row.
type recordView struct {
	ledger.Record
	When, Took, ArgsText string
	Decision             bool
}

type ledgerView struct {
	Query      ledger.Query
	Since      string
	Until      string
	Limit      string
	Records    []recordView
	Errors     []string
	Chain      bool // the rows are one ticket's chain, oldest first
	ExportHref string
	Off        bool
}

func (c *Console) ledgerPage(w http.ResponseWriter, r *http.Request) {
	p := c.newPage(r, "ledger", "Ledger")
	v := r.URL.Query()
	q, errs := parseQuery(v)
	lv := &ledgerView{Query: q, Since: v.Get("since"), Until: v.Get("until"), Limit: v.Get("limit"), Errors: errs, Off: c.opts.LedgerReader == nil}
	p.Ledger = lv
	ev := url.Values{}
	for _, k := range []string{"run", "tool", "subject", "outcome", "ticket", "since", "until", "limit"} {
		if s := v.Get(k); s != "" {
			ev.Set(k, s)
		}
	}
	lv.ExportHref = "export"
	if len(ev) > 0 {
		lv.ExportHref += "?" + ev.Encode()
	}
	status := http.StatusOK
	if len(errs) > 0 {
		status = http.StatusBadRequest
	}
	if c.opts.LedgerReader != nil && len(errs) == 0 {
		// A ticket's chain reads in order: asked, decided, ran.
		lv.Chain = q.Ticket != ""
		for rec, err := range c.query(r.Context(), q, lv.Chain) {
			if err != nil {
				c.logger.Error("console: querying the ledger", "err", err)
				p.Error = "The ledger could not be read; see the server log."
				status = http.StatusInternalServerError
				break
			}
			rv := recordView{Record: rec, When: rec.Time.UTC().Format("2006-01-02 15:04:05.000"), Decision: rec.Source == Source}
			if rec.Duration > 0 {
				rv.Took = rec.Duration.Round(time.Microsecond).String()
			}
			if len(rec.Args) > 0 {
				rv.ArgsText = termtext.Line(truncate(readable(rec.Args, ""), 2000))
			}
			// Shown escaped: callers, models and upstreams wrote these.
			rv.Tool, rv.Subject, rv.Message, rv.Approver = termtext.Line(rec.Tool), termtext.Line(rec.Subject), termtext.Block(rec.Message), termtext.Line(rec.Approver)
			lv.Records = append(lv.Records, rv)
		}
	}
	c.render(w, r, status, "ledger", p)
}

// export writes the matching records as JSON lines, oldest first, with
// their chain fields (Seq, Prev, Hash) when the ledger keeps a chain.
func (c *Console) export(w http.ResponseWriter, r *http.Request) {
	if c.opts.LedgerReader == nil {
		http.Error(w, "console: no ledger reader is configured", http.StatusNotFound)
		return
	}
	q, errs := parseQuery(r.URL.Query())
	if len(errs) > 0 {
		http.Error(w, "console: "+errs[0], http.StatusBadRequest)
		return
	}
	if q.Limit == 0 {
		q.Limit = maxLedgerLimit
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="ledger.jsonl"`)
	if err := ledger.WriteJSONL(w, c.query(r.Context(), q, true)); err != nil {
		// The status is sent: a truncated body is the signal.
		c.logger.Error("console: exporting the ledger", "err", err)
	}
}
