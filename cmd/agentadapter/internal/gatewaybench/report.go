package gatewaybench

import (
	"fmt"
	"slices"
	"strings"
)

// Row is the median over rounds of one configuration at one session count.
type Row struct {
	Config   string
	Sessions int
	Sample
}

// Rows are the medians, per session count in the order of Options.Sessions
// and per configuration in the order of a round.
func (r *Report) Rows() []Row {
	var out []Row
	seen := map[[2]any]bool{}
	for _, s := range r.Samples {
		k := [2]any{s.Config, s.Sessions}
		if seen[k] {
			continue
		}
		seen[k] = true
		var ss []Sample
		for _, t := range r.Samples {
			if t.Config == s.Config && t.Sessions == s.Sessions {
				ss = append(ss, t)
			}
		}
		m := Sample{Config: s.Config, Sessions: s.Sessions}
		med := func(f func(Sample) float64) float64 {
			v := make([]float64, len(ss))
			for i, s := range ss {
				v[i] = f(s)
			}
			slices.Sort(v)
			return v[len(v)/2]
		}
		m.PerSec = med(func(s Sample) float64 { return s.PerSec })
		m.P50us = med(func(s Sample) float64 { return s.P50us })
		m.P99us = med(func(s Sample) float64 { return s.P99us })
		m.ClientUS = med(func(s Sample) float64 { return s.ClientUS })
		m.GatewayUS = med(func(s Sample) float64 { return s.GatewayUS })
		m.UpstreamUS = med(func(s Sample) float64 { return s.UpstreamUS })
		m.Load1 = med(func(s Sample) float64 { return s.Load1 })
		for _, s := range ss {
			m.Calls += s.Calls
			m.Errors += s.Errors
		}
		out = append(out, Row{s.Config, s.Sessions, m})
	}
	slices.SortStableFunc(out, func(a, b Row) int { return a.Sessions - b.Sessions })
	return out
}

// find returns the row of config at n sessions.
func find(rows []Row, config string, n int) (Row, bool) {
	for _, r := range rows {
		if r.Config == config && r.Sessions == n {
			return r, true
		}
	}
	return Row{}, false
}

// Markdown writes the report as markdown tables.
func (r *Report) Markdown() string {
	var b strings.Builder
	rows := r.Rows()
	fmt.Fprintf(&b, "| sessions | configuration | calls/s | %% of direct | p50 µs | p99 µs | CPU/call µs: client | gateway | upstream | gateway ÷ direct client+upstream | same, direct at serve's rate | load (1 min) | calls | errors |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, row := range rows {
		pct, ratio, paced := "", "", ""
		if d, ok := find(rows, Direct, row.Sessions); ok && row.GatewayUS > 0 {
			pct = fmt.Sprintf("%.0f %%", 100*row.PerSec/d.PerSec)
			ratio = fmt.Sprintf("%.2f×", row.GatewayUS/(d.ClientUS+d.UpstreamUS))
		}
		if d, ok := find(rows, DirectPaced, row.Sessions); ok && row.Config == GatewayHTTP {
			paced = fmt.Sprintf("%.2f×", row.GatewayUS/(d.ClientUS+d.UpstreamUS))
		}
		fmt.Fprintf(&b, "| %d | %s | %.0f | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %s | %s | %.1f | %d | %d |\n",
			row.Sessions, row.Config, row.PerSec, pct, row.P50us, row.P99us, row.ClientUS, row.GatewayUS, row.UpstreamUS, ratio, paced, row.Load1, row.Calls, row.Errors)
	}
	fmt.Fprintf(&b, "\nMedians of %d interleaved rounds of %s per configuration; load average (1 min) %.1f–%.1f.\n", r.Rounds, r.Window, r.LoadMin, r.LoadMax)
	fmt.Fprintf(&b, "Gateway (HTTP upstream) RSS: %d KB idle, +%d KB per 1,000 idle sessions. Cold start, %d tools: first full tools/list %.2f s after exec, RSS then %d KB.\n",
		r.IdleRSSKB, r.PerThousandKB, r.ColdTools, r.ColdStart.Seconds(), r.ColdRSSKB)
	return b.String()
}
