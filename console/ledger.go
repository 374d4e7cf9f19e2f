package console

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
)

// MemoryLedgerReader answers queries from an in-memory ledger.
func MemoryLedgerReader(m *adapter.MemoryLedger) LedgerReader { return memReader{m} }

type memReader struct{ m *adapter.MemoryLedger }

func (m memReader) Query(_ context.Context, q LedgerQuery) iter.Seq2[adapter.Record, error] {
	recs := m.m.Records()
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLedgerLimit
	}
	return func(yield func(adapter.Record, error) bool) {
		n := 0
		for _, r := range slices.Backward(recs) {
			if !q.Match(&r) {
				continue
			}
			if n == limit || !yield(r, nil) {
				return
			}
			n++
		}
	}
}

// Match reports whether r satisfies q (Limit aside); LedgerReader
// implementations may use it.
func (q *LedgerQuery) Match(r *adapter.Record) bool {
	return (q.Run == "" || r.RunID == q.Run) &&
		(q.Tool == "" || r.Tool == q.Tool) &&
		(q.Subject == "" || r.Subject == q.Subject) &&
		(q.Outcome == "" || r.Outcome == q.Outcome) &&
		(q.Ticket == "" || r.Ticket == q.Ticket) &&
		(q.Since.IsZero() || !r.Time.Before(q.Since)) &&
		(q.Until.IsZero() || r.Time.Before(q.Until))
}

// maxLedgerLimit bounds a page or an export.
const maxLedgerLimit = 100000

// timeLayout is what a datetime-local input sends.
const timeLayout = "2006-01-02T15:04"

func parseQuery(v url.Values) (LedgerQuery, []string) {
	q := LedgerQuery{Run: v.Get("run"), Tool: v.Get("tool"), Subject: v.Get("subject"), Outcome: v.Get("outcome"), Ticket: v.Get("ticket")}
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
	adapter.Record
	When, Took, ArgsText string
	Decision             bool
}

type ledgerView struct {
	Query      LedgerQuery
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
		for rec, err := range c.opts.LedgerReader.Query(r.Context(), q) {
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
				rv.ArgsText = truncate(string(rec.Args), 2000)
			}
			lv.Records = append(lv.Records, rv)
		}
		// A ticket's chain reads in order: asked, decided, ran.
		if q.Ticket != "" {
			lv.Chain = true
			slices.Reverse(lv.Records)
		}
	}
	c.render(w, r, status, "ledger", p)
}

// export writes the matching records as JSON lines.
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
	enc := json.NewEncoder(w)
	for rec, err := range c.opts.LedgerReader.Query(r.Context(), q) {
		if err != nil {
			c.logger.Error("console: exporting the ledger", "err", err)
			return // the truncated body is the signal; the status is sent
		}
		if enc.Encode(&rec) != nil {
			return
		}
	}
}
