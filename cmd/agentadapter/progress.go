package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentadapter/agentadapter/termtext"
)

// progress shows servers connecting in parallel, one line each with its
// status and time, redrawn in place on a terminal. It prints nothing when
// the output is not a terminal (piped, redirected, in CI).
type progress struct {
	w     io.Writer
	on    bool
	mu    sync.Mutex
	rows  map[string]*row
	drawn int
	start time.Time
	stop  chan struct{}
	done  chan struct{}
}

type row struct {
	status string
	tools  int
	took   time.Duration
	done   bool
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, on: isTerminal(w), rows: map[string]*row{}, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	if !p.on {
		close(p.done)
		return p
	}
	go func() {
		defer close(p.done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				p.draw()
				return
			case <-t.C:
				p.draw()
			}
		}
	}()
	return p
}

// update is the gateway's Progress callback.
func (p *progress) update(server, status string, tools int, took time.Duration) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rows[server] = &row{status: status, tools: tools, took: took, done: status != "connecting"}
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	names := make([]string, 0, len(p.rows))
	width := 0
	for n := range p.rows {
		names = append(names, n)
		width = max(width, len(n))
	}
	sort.Strings(names)
	var b strings.Builder
	if p.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", p.drawn)
	}
	frame := spinner[int(time.Since(p.start)/(100*time.Millisecond))%len(spinner)]
	for _, n := range names {
		r := p.rows[n]
		b.WriteString("\x1b[2K")
		switch {
		case !r.done:
			fmt.Fprintf(&b, "  %s %-*s  connecting…\n", frame, width, termtext.Line(n))
		case r.status == "connected":
			fmt.Fprintf(&b, "  \x1b[32m✓\x1b[0m %-*s  %d tools  %s\n", width, termtext.Line(n), r.tools, r.took.Round(time.Millisecond))
		default:
			// The status is an error, often quoting the server.
			msg := termtext.Line(r.status)
			if utf8.RuneCountInString(msg) > 100 {
				msg = string([]rune(msg)[:100]) + "…"
			}
			fmt.Fprintf(&b, "  \x1b[31m✗\x1b[0m %-*s  %s  %s\n", width, termtext.Line(n), msg, r.took.Round(time.Millisecond))
		}
	}
	p.drawn = len(names)
	_, _ = io.WriteString(p.w, b.String())
}

// finish draws the final state and stops redrawing.
func (p *progress) finish() {
	if p.on {
		select {
		case <-p.stop:
		default:
			close(p.stop)
		}
	}
	<-p.done
}
