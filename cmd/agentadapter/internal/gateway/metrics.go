package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
)

// Metrics counts calls from the ledger (every call is recorded exactly
// once, off the call path) and reads gauges at scrape time. It serves the
// Prometheus text exposition format.
type Metrics struct {
	g       *Gateway
	mu      sync.Mutex
	calls   map[[2]string]int64 // tool, outcome
	buckets map[string][]int64  // tool → counts per latencyBuckets (+Inf last)
	sums    map[string]float64
}

var latencyBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

func newMetrics(g *Gateway) *Metrics {
	return &Metrics{g: g, calls: map[[2]string]int64{}, buckets: map[string][]int64{}, sums: map[string]float64{}}
}

func (m *Metrics) observe(r *ledger.Record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls[[2]string{r.Tool, r.Outcome}]++
	b := m.buckets[r.Tool]
	if b == nil {
		b = make([]int64, len(latencyBuckets)+1)
		m.buckets[r.Tool] = b
	}
	s := r.Duration.Seconds()
	for i, le := range latencyBuckets {
		if s <= le {
			b[i]++
		}
	}
	b[len(latencyBuckets)]++
	m.sums[r.Tool] += s
}

// ServeHTTP writes the metrics.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	var b strings.Builder
	m.mu.Lock()
	b.WriteString("# HELP agentadapter_calls_total Tool calls by tool and outcome (ok or the error kind).\n# TYPE agentadapter_calls_total counter\n")
	keys := make([][2]string, 0, len(m.calls))
	for k := range m.calls {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+"\x00"+keys[i][1] < keys[j][0]+"\x00"+keys[j][1] })
	for _, k := range keys {
		fmt.Fprintf(&b, "agentadapter_calls_total{tool=%s,outcome=%s} %d\n", q(k[0]), q(k[1]), m.calls[k])
	}
	b.WriteString("# HELP agentadapter_call_duration_seconds Tool call latency.\n# TYPE agentadapter_call_duration_seconds histogram\n")
	for _, tool := range sortedKeys(m.buckets) {
		bk := m.buckets[tool]
		for i, le := range latencyBuckets {
			fmt.Fprintf(&b, "agentadapter_call_duration_seconds_bucket{tool=%s,le=\"%g\"} %d\n", q(tool), le, bk[i])
		}
		fmt.Fprintf(&b, "agentadapter_call_duration_seconds_bucket{tool=%s,le=\"+Inf\"} %d\n", q(tool), bk[len(latencyBuckets)])
		fmt.Fprintf(&b, "agentadapter_call_duration_seconds_sum{tool=%s} %g\n", q(tool), m.sums[tool])
		fmt.Fprintf(&b, "agentadapter_call_duration_seconds_count{tool=%s} %d\n", q(tool), bk[len(latencyBuckets)])
	}
	m.mu.Unlock()
	pending := 0
	ctx, cancel := context.WithTimeout(req.Context(), 2*time.Second)
	defer cancel()
	for _, err := range m.g.appr.Pending(ctx) {
		if err != nil {
			break
		}
		pending++
	}
	fmt.Fprintf(&b, "# HELP agentadapter_pending_approvals Approval tickets awaiting a decision.\n# TYPE agentadapter_pending_approvals gauge\nagentadapter_pending_approvals %d\n", pending)
	fmt.Fprintf(&b, "# HELP agentadapter_quarantined_tools Tools refused because their definition changed.\n# TYPE agentadapter_quarantined_tools gauge\nagentadapter_quarantined_tools %d\n", len(m.g.mgr.Quarantined()))
	b.WriteString("# HELP agentadapter_upstream_up Whether an upstream server is connected.\n# TYPE agentadapter_upstream_up gauge\n")
	for _, s := range m.g.mgr.Servers() {
		up := 0
		if s.Connected {
			up = 1
		}
		fmt.Fprintf(&b, "agentadapter_upstream_up{server=%s} %d\n", q(s.Name), up)
	}
	fmt.Fprintf(&b, "# HELP agentadapter_tools Tools served.\n# TYPE agentadapter_tools gauge\nagentadapter_tools %d\n", m.g.reg.Len())
	_, _ = w.Write([]byte(b.String()))
}

// q quotes a label value.
func q(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// meteredLedger counts each record, then hands it on.
type meteredLedger struct {
	next ledger.Ledger
	m    *Metrics
}

func (l *meteredLedger) Write(ctx context.Context, r *ledger.Record) error {
	l.m.observe(r)
	return l.next.Write(ctx, r)
}

// Durable passes on the store's [ledger.Durable]: hidden behind the
// wrappers, a durable store's records were queued in the executor's
// memory again and lost with a killed process.
func (l *meteredLedger) Durable() bool { return isDurable(l.next) }

func isDurable(l ledger.Ledger) bool {
	d, ok := l.(ledger.Durable)
	return ok && d.Durable()
}

func (g *Gateway) saveQuarantines() {
	var out []state.Quarantine
	for _, q := range g.mgr.Quarantined() {
		def, _ := json.Marshal(q.Definition)
		if q.Resource != nil {
			def, _ = json.Marshal(q.Resource) // a ui:// resource's envelope
		}
		var prev json.RawMessage
		if q.Previous != nil {
			prev, _ = json.Marshal(q.Previous)
		}
		out = append(out, state.Quarantine{Server: q.Server, Tool: q.Tool, RemoteName: q.RemoteName, Pinned: q.Pinned, Got: q.Got, Definition: def, Previous: prev})
	}
	if err := g.opts.Store.SetQuarantines(context.Background(), out); err != nil {
		g.log.Error("saving quarantines", "err", err)
	}
}

// watchPins releases quarantined tools whose new definition an operator
// accepted through the shared pin store (agentadapter pins accept, from
// any process).
func (g *Gateway) watchPins(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		before := len(g.mgr.Quarantined())
		if before > 0 || g.quarantinesHeld() {
			g.noteQuarantines() // one lifted without a word (search.go)
		}
		if before == 0 {
			continue
		}
		if err := g.mgr.SyncPins(ctx); err != nil {
			g.log.Error("syncing pins", "err", err)
		}
		if after := len(g.mgr.Quarantined()); after != before {
			g.noteQuarantines()
			g.log.Info("quarantine released: new definition accepted", "released", before-after)
			g.saveQuarantines()
		}
	}
}
