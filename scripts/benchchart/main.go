// Command benchchart draws the chart of `scripts/bench gateway`: calls/s
// and gateway CPU per call of each configuration at each session count,
// from the JSON report the driver (cmd/agentadapter/internal/gatewaybench)
// writes, as an SVG.
//
//	go run ./scripts/benchchart -in bench/gateway.json -out docs/gateway-bench.svg
//
// It is a module of its own so that its plotting dependency
// (gonum.org/v1/plot) stays out of every module users build.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"image/color"
	"log"
	"os"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// sample mirrors gatewaybench.Sample (an internal package of another module).
type sample struct {
	Config     string  `json:"config"`
	Sessions   int     `json:"sessions"`
	PerSec     float64 `json:"callsPerSec"`
	ClientUS   float64 `json:"clientCPUus"`
	GatewayUS  float64 `json:"gatewayCPUus"`
	UpstreamUS float64 `json:"upstreamCPUus"`
}

type report struct {
	Samples []sample `json:"samples"`
	Rounds  int      `json:"rounds"`
	LoadMin float64  `json:"loadMin"`
	LoadMax float64  `json:"loadMax"`
}

func main() {
	in := flag.String("in", "bench/gateway.json", "the driver's JSON report")
	out := flag.String("out", "docs/gateway-bench.svg", "the SVG to write")
	flag.Parse()
	b, err := os.ReadFile(*in)
	if err != nil {
		log.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		log.Fatal(err)
	}
	if err := draw2(r, *out); err != nil {
		log.Fatal(err)
	}
}

// median of f over the samples of config at n sessions.
func median(r report, config string, n int, f func(sample) float64) float64 {
	var v []float64
	for _, s := range r.Samples {
		if s.Config == config && s.Sessions == n {
			v = append(v, f(s))
		}
	}
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func draw2(r report, out string) error {
	var configs []string
	var sessions []int
	for _, s := range r.Samples {
		if !slices.Contains(configs, s.Config) {
			configs = append(configs, s.Config)
		}
		if !slices.Contains(sessions, s.Sessions) {
			sessions = append(sessions, s.Sessions)
		}
	}
	slices.Sort(sessions)
	names := make([]string, len(sessions))
	for i, n := range sessions {
		names[i] = fmt.Sprintf("%d sessions", n)
	}
	colors := []color.Color{color.RGBA{0x4c, 0x72, 0xb0, 255}, color.RGBA{0xdd, 0x84, 0x52, 255}, color.RGBA{0x55, 0xa8, 0x68, 255}, color.RGBA{0xc4, 0x4e, 0x52, 255}, color.RGBA{0x81, 0x72, 0xb3, 255}}
	bars := func(title, ylabel string, series []string, value func(config string, n int) float64) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text = title
		p.Y.Label.Text = ylabel
		p.Legend.Top = true
		w := vg.Points(14)
		for i, c := range series {
			v := make(plotter.Values, len(sessions))
			for j, n := range sessions {
				v[j] = value(c, n)
			}
			bc, err := plotter.NewBarChart(v, w)
			if err != nil {
				return nil, err
			}
			bc.Color = colors[i%len(colors)]
			bc.LineStyle.Width = 0
			bc.Offset = w * vg.Length(float64(i)-float64(len(series)-1)/2)
			p.Add(bc)
			p.Legend.Add(c, bc)
		}
		p.NominalX(names...)
		p.Y.Min, p.Y.Max = 0, p.Y.Max*1.6 // room for the legend above the bars
		return p, nil
	}
	perSec, err := bars(fmt.Sprintf("Calls/s (median of %d rounds, load %.1f–%.1f)", r.Rounds, r.LoadMin, r.LoadMax), "calls/s", configs,
		func(c string, n int) float64 { return median(r, c, n, func(s sample) float64 { return s.PerSec }) })
	if err != nil {
		return err
	}
	// A direct configuration's bar is its client + upstream, a gateway's
	// the gateway alone: what "no more than a client plus a server" reads.
	var cpuSeries []string
	for _, c := range configs {
		if strings.HasPrefix(c, "direct") {
			cpuSeries = append(cpuSeries, c+": client + upstream")
		} else {
			cpuSeries = append(cpuSeries, c+": gateway")
		}
	}
	cpu, err := bars("CPU per call (µs)", "µs", cpuSeries, func(c string, n int) float64 {
		config := configs[slices.Index(cpuSeries, c)]
		if strings.HasPrefix(config, "direct") {
			return median(r, config, n, func(s sample) float64 { return s.ClientUS + s.UpstreamUS })
		}
		return median(r, config, n, func(s sample) float64 { return s.GatewayUS })
	})
	if err != nil {
		return err
	}
	const wd, ht = 9 * vg.Inch, 3.6 * vg.Inch
	c := vgsvg.New(wd, ht)
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2}
	cv := plot.Align([][]*plot.Plot{{perSec, cpu}}, tiles, dc)
	perSec.Draw(cv[0][0])
	cpu.Draw(cv[0][1])
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
