package gateway

import (
	"bufio"
	"bytes"
	"log/slog"
	"os"
	"sync"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
)

// mirror follows the import registry into the registry clients see,
// reshaping each tool by its server's policy. It runs synchronously in
// the import registry's change order.
func (g *Gateway) mirror(c registry.Change) {
	var changes []registry.Change
	switch c.Op {
	case registry.Removed:
		if name, ok := g.localName(c.Old); ok {
			changes = append(changes, registry.Change{Op: registry.Removed, Name: name})
		}
	case registry.Added:
		changes = append(changes, registry.Change{Op: registry.Added, New: g.reshape(c.New)})
	case registry.Replaced:
		old, _ := g.localName(c.Old)
		n := g.reshape(c.New)
		if old == n.Name {
			changes = append(changes, registry.Change{Op: registry.Replaced, New: n})
		} else {
			changes = append(changes, registry.Change{Op: registry.Removed, Name: old}, registry.Change{Op: registry.Added, New: n})
		}
	}
	if err := g.reg.Update(changes...); err != nil {
		g.log.Error("tool not served", "tool", c.Name, "err", err)
	}
}

// localName is the name clients see for an imported spec, if it is served.
func (g *Gateway) localName(s *adapter.Spec) (string, bool) {
	name := g.rename(s)
	cur, ok := g.reg.Lookup(name)
	return name, ok && cur.Source.Server == s.Source.Server && cur.Source.RemoteName == s.Source.RemoteName
}

func (g *Gateway) serverPolicy(server string) *config.ServerPolicy {
	for _, s := range g.Config().Servers {
		if s.Name == server {
			return s.Policy
		}
	}
	return &config.ServerPolicy{}
}

func (g *Gateway) rename(s *adapter.Spec) string {
	if n, ok := g.serverPolicy(s.Source.Server).Rename[s.Source.RemoteName]; ok {
		return n
	}
	return s.Name
}

// reshape applies rename and overrides. (Trust is the manager's: an
// untrusted server's tools arrive with the cautious annotations, and an
// override here is the operator's word.)
func (g *Gateway) reshape(s *adapter.Spec) *adapter.Spec {
	p := g.serverPolicy(s.Source.Server)
	n := &adapter.Spec{
		Name: g.rename(s), Title: s.Title, Description: s.Description,
		InputSchema: s.InputSchema, OutputSchema: s.OutputSchema, Annotations: s.Annotations,
		Targets: s.Targets, Tags: s.Tags, Timeout: s.Timeout, Source: s.Source, Meta: s.Meta,
		Handler: s.Handler, HonorsContext: s.HonorsContext, Streaming: s.Streaming,
	}
	if o := p.Tools[s.Source.RemoteName]; o != nil {
		if o.Title != nil {
			n.Title = *o.Title
		}
		if o.Description != nil {
			n.Description = *o.Description
		}
		if a := o.Annotations; a != nil {
			if a.ReadOnly != nil {
				n.Annotations.ReadOnly = *a.ReadOnly
			}
			if a.Destructive != nil {
				n.Annotations.Destructive = a.Destructive
			}
			if a.Idempotent != nil {
				n.Annotations.Idempotent = *a.Idempotent
			}
			if a.OpenWorld != nil {
				n.Annotations.OpenWorld = a.OpenWorld
			}
		}
	}
	return n
}

// lineLogger logs a child process's standard error line by line.
type lineLogger struct {
	log    *slog.Logger
	server string
	mu     sync.Mutex
	buf    bytes.Buffer
}

const maxLogLine = 4096

func (l *lineLogger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for {
		i := bytes.IndexByte(l.buf.Bytes(), '\n')
		if i < 0 {
			if l.buf.Len() > maxLogLine {
				l.emit(l.buf.Next(maxLogLine))
			}
			return len(p), nil
		}
		l.emit(l.buf.Next(i + 1))
	}
}

func (l *lineLogger) emit(line []byte) {
	sc := bufio.NewScanner(bytes.NewReader(line))
	sc.Buffer(nil, maxLogLine+1)
	for sc.Scan() {
		if t := sc.Text(); t != "" {
			l.log.Info("server stderr", "server", l.server, "line", t)
		}
	}
}

func osEnviron() []string { return os.Environ() }
