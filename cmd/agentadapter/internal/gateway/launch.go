package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
)

// A stdio server's launch (mcpadapter.Launch: resolved command, its
// file's hash, args, env names with their values' hashes, cwd) is pinned
// like a tool definition, under mcpadapter.LaunchKey in the store's pins.
// A launch that is new or changed since the accepted one is not started:
// it waits, listed as pending, until an operator accepts its hash (the
// console, `agentadapter servers accept`), unless the gateway's own file
// trusts the server or serve's --accept-launches accepts the launches of
// its first start. Every accept is a ledger record.

// OutcomeLaunchAccepted is the ledger outcome of an accepted launch. The
// record's Tool is mcpadapter.LaunchKey(server), Approver who accepted,
// Integration the channel (console, cli, config, flag) and Args the
// accepted launch (LaunchRecord).
const OutcomeLaunchAccepted = "launch_accepted"

// LaunchRecord is the Args of an OutcomeLaunchAccepted record: what was
// accepted, so a later change can be shown as a diff.
type LaunchRecord struct {
	Server string      `json:"server"`
	Hash   string      `json:"hash"`
	Launch *pin.Launch `json:"launch"`
}

// LaunchPendingError is the error of connecting a server whose launch
// waits for review.
type LaunchPendingError struct {
	Server string
	// Changed: a launch was accepted before, and this one differs.
	Changed bool
	// Wrapper is the shell the launch hands a command string to, if any.
	Wrapper string
}

func (e *LaunchPendingError) Error() string {
	what := "new"
	if e.Changed {
		what = "changed"
	}
	shell := ""
	if e.Wrapper != "" {
		shell = fmt.Sprintf(" (it runs a command string through %q)", e.Wrapper)
	}
	return fmt.Sprintf("launch pending review: server %q has a %s launch%s and is not started; review it on the console's servers page or with `agentadapter servers diff %s`, then accept it with `agentadapter servers accept %s --hash HASH`",
		e.Server, what, shell, e.Server, e.Server)
}

// ErrLaunchNotPending is wrapped by the error of accepting the launch of a
// server that has none waiting.
var ErrLaunchNotPending = errors.New("no launch of this server is waiting for review")

// launches holds the pending launches of a gateway.
type launches struct {
	mu      sync.Mutex
	pending map[string]*pin.PendingLaunch
}

// LaunchOf describes the launch of a stdio server as the gateway would
// start it.
func LaunchOf(s *config.Server) (*pin.Launch, error) {
	if s.Kind != "stdio" {
		return nil, fmt.Errorf("server %q is not a stdio server", s.Name)
	}
	return pin.NewLaunch(s.Command, s.Args, s.Env, s.Dir)
}

// MaskLaunch returns a copy of l as it may be shown or recorded: its
// arguments masked by config.MaskArgs ("--api-key X"). A launch's hash
// is taken of the launch itself, before: the accept still covers the real
// arguments.
func MaskLaunch(l *pin.Launch) *pin.Launch {
	if l == nil {
		return nil
	}
	m := *l
	m.Args = config.MaskArgs(l.Args)
	return &m
}

// ReviewLaunch compares a stdio server's launch with its pin: nil when it
// is accepted, else what waits for review.
func ReviewLaunch(ctx context.Context, st state.Store, s *config.Server) (*pin.PendingLaunch, error) {
	l, err := LaunchOf(s)
	if err != nil {
		return nil, err
	}
	h := l.Hash()
	pinned, ok, err := st.Pins().Get(ctx, pin.LaunchKey(s.Name))
	if err != nil {
		return nil, fmt.Errorf("reading the launch pin of %q: %w", s.Name, err)
	}
	if ok && pinned == h {
		return nil, nil
	}
	p := &pin.PendingLaunch{Server: s.Name, Launch: MaskLaunch(l), Hash: h, Pinned: pinned}
	if ok {
		p.Previous = AcceptedLaunch(ctx, st, s.Name, pinned)
	}
	return p, nil
}

// maxLaunchScan bounds the records read to find an accepted launch.
const maxLaunchScan = 100

// AcceptedLaunch returns the launch of server accepted with hash, as its
// ledger record holds it, or nil.
func AcceptedLaunch(ctx context.Context, st state.Store, server, hash string) *pin.Launch {
	for rec, err := range st.Records(ctx, ledger.Query{Outcome: OutcomeLaunchAccepted, Tool: pin.LaunchKey(server), Newest: true, Limit: maxLaunchScan}) {
		if err != nil {
			return nil
		}
		var lr LaunchRecord
		if json.Unmarshal(rec.Args, &lr) == nil && lr.Hash == hash && lr.Launch != nil {
			return MaskLaunch(lr.Launch)
		}
	}
	return nil
}

// AcceptLaunch pins the pending launch p if hash, the hash the operator
// reviewed, is p's, and records who accepted it through which channel. A
// running gateway starts the server within a second.
func AcceptLaunch(ctx context.Context, st state.Store, led ledger.Ledger, p *pin.PendingLaunch, hash, by, channel string) error {
	if hash != p.Hash {
		return fmt.Errorf("server %q: %w", p.Server, mcpadapter.ErrLaunchChanged)
	}
	args, err := json.Marshal(LaunchRecord{Server: p.Server, Hash: p.Hash, Launch: p.Launch})
	if err != nil {
		return err
	}
	if err := st.Pins().Set(ctx, pin.LaunchKey(p.Server), p.Hash); err != nil {
		return fmt.Errorf("storing the launch pin: %w", err)
	}
	rec := &ledger.Record{
		Time: time.Now(), Tool: pin.LaunchKey(p.Server), Source: "launch", Integration: channel,
		Outcome: OutcomeLaunchAccepted, Approval: "approved", Approver: by, Args: args,
		Message: fmt.Sprintf("launch of server %s accepted: %s %q (%s)", p.Server, p.Launch.Path, p.Launch.Args, p.Hash),
	}
	if err := led.Write(context.WithoutCancel(ctx), rec); err != nil {
		return fmt.Errorf("the launch is accepted, but recording it in the ledger failed: %w", err)
	}
	if f, ok := led.(interface{ Flush(context.Context) error }); ok {
		_ = f.Flush(ctx)
	}
	return nil
}

// TrustsLaunch reports whether cfg accepts the launches of s without an
// operator: "trust": "trusted" for it in the gateway's own file. A
// client's file it includes (mcp.json, which editors and agents write)
// never starts a launch by itself.
func TrustsLaunch(cfg *config.Config, s *config.Server) bool {
	return s.Policy != nil && s.Policy.Trust == "trusted" && s.PolicyFile != "" && s.PolicyFile == cfg.File
}

// gateLaunch decides whether s may start: nil when its launch is accepted
// (now, by the gateway's own file or by Options.AcceptLaunches on the
// first start), else a *LaunchPendingError, the launch listed as pending.
func (g *Gateway) gateLaunch(ctx context.Context, s *config.Server) error {
	if s.Kind != "stdio" {
		return nil
	}
	p, err := ReviewLaunch(ctx, g.opts.Store, s)
	if err != nil {
		return err
	}
	if p == nil {
		g.setPending(s.Name, nil)
		return nil
	}
	by, channel := "", ""
	switch {
	case TrustsLaunch(g.Config(), s):
		by, channel = "config:"+s.PolicyFile, "config"
	case g.acceptStart.Load():
		by, channel = "serve --accept-launches", "flag"
	}
	if by != "" {
		if err := AcceptLaunch(ctx, g.opts.Store, g.ledger, p, p.Hash, by, channel); err != nil {
			return err
		}
		g.setPending(s.Name, nil)
		g.log.Info("launch accepted", "server", s.Name, "by", by, "hash", p.Hash)
		return nil
	}
	g.setPending(s.Name, p)
	perr := &LaunchPendingError{Server: s.Name, Changed: p.Pinned != "", Wrapper: p.Launch.ShellWrapper()}
	g.log.Warn("launch pending review: the server is not started until an operator accepts its launch",
		"server", s.Name, "changed", perr.Changed, "shell_wrapper", perr.Wrapper, "hash", p.Hash,
		"accept", "agentadapter servers accept "+s.Name+" --hash "+p.Hash)
	return perr
}

func (g *Gateway) setPending(server string, p *pin.PendingLaunch) {
	g.launches.mu.Lock()
	defer g.launches.mu.Unlock()
	if p == nil {
		delete(g.launches.pending, server)
		return
	}
	if g.launches.pending == nil {
		g.launches.pending = map[string]*pin.PendingLaunch{}
	}
	g.launches.pending[server] = p
}

// pending returns the pending launch of server, if any.
func (g *Gateway) pending(server string) *pin.PendingLaunch {
	g.launches.mu.Lock()
	defer g.launches.mu.Unlock()
	return g.launches.pending[server]
}

// launchReleased reports whether the pending launch of server was
// accepted since (its pin now holds its hash), by this gateway or by
// another process sharing the store.
func (g *Gateway) launchReleased(ctx context.Context, server string) bool {
	p := g.pending(server)
	if p == nil {
		return true
	}
	h, ok, err := g.opts.Store.Pins().Get(ctx, pin.LaunchKey(server))
	return err == nil && ok && h == p.Hash
}

// PendingLaunches lists the launches waiting for review, by server name.
func (g *Gateway) PendingLaunches() []pin.PendingLaunch {
	configured := map[string]bool{}
	for _, s := range g.Config().Servers {
		configured[s.Name] = !s.Disabled
	}
	g.launches.mu.Lock()
	defer g.launches.mu.Unlock()
	var out []pin.PendingLaunch
	for name, p := range g.launches.pending {
		if configured[name] {
			out = append(out, *p)
		}
	}
	slices.SortFunc(out, func(a, b pin.PendingLaunch) int {
		switch {
		case a.Server < b.Server:
			return -1
		case a.Server > b.Server:
			return 1
		}
		return 0
	})
	return out
}

// AcceptLaunch accepts the pending launch of server whose hash the
// operator reviewed; the server starts within a second. It fails,
// wrapping mcpadapter.ErrLaunchChanged, if the pending launch is not the
// one with that hash.
// The console calls it: the record's channel is "console".
func (g *Gateway) AcceptLaunch(ctx context.Context, server, hash, operator string) error {
	p := g.pending(server)
	if p == nil {
		return fmt.Errorf("server %q: %w", server, ErrLaunchNotPending)
	}
	if err := AcceptLaunch(ctx, g.opts.Store, g.ledger, p, hash, operator, "console"); err != nil {
		return err
	}
	g.log.Info("launch accepted", "server", server, "by", operator, "hash", hash)
	return nil
}

// LaunchStatus is the reason server is not started when its launch waits
// for review, or "".
func (g *Gateway) LaunchStatus(server string) string {
	if p := g.pending(server); p != nil {
		if p.Pinned != "" {
			return "launch pending review (changed)"
		}
		return "launch pending review (new)"
	}
	return ""
}

// Servers, Quarantined and Accept make the gateway the console's view of
// its servers (console.Servers), with the launches waiting for review
// (console.Launches) beside them.

// Servers is mcpadapter.Manager.Servers.
func (g *Gateway) Servers() []mcpadapter.UpstreamStatus { return g.mgr.Servers() }

// Quarantined is mcpadapter.Manager.Quarantined.
func (g *Gateway) Quarantined() []mcpadapter.Quarantine { return g.mgr.Quarantined() }

// Accept is mcpadapter.Manager.Accept.
func (g *Gateway) Accept(server, tool, hash string) error {
	err := g.mgr.Accept(server, tool, hash)
	g.noteQuarantines()
	return err
}
