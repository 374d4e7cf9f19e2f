package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/gateway"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
)

// started is a gateway with its store.
type started struct {
	gw    *gateway.Gateway
	store state.Store
}

func (s *started) close() {
	_ = s.gw.Close()
	_ = s.store.Close()
}

// start opens the store, builds the gateway and connects every server,
// showing progress on a terminal.
func (e *env) start(ctx context.Context, cfg *config.Config, log *slog.Logger, supervise bool) (*started, error) {
	return e.startGateway(ctx, cfg, gateway.Options{Logger: log, Supervise: supervise})
}

// startGateway is start with more of the gateway's options; Store,
// Progress, Version and StopGrace are set here.
func (e *env) startGateway(ctx context.Context, cfg *config.Config, opts gateway.Options) (*started, error) {
	s, connect, err := e.newGateway(ctx, cfg, opts)
	if err != nil {
		return nil, err
	}
	connect(ctx)
	return s, nil
}

// newGateway is startGateway in two steps: the gateway built, and connect,
// which connects its servers (serve listens in between).
func (e *env) newGateway(ctx context.Context, cfg *config.Config, opts gateway.Options) (*started, func(context.Context), error) {
	log := opts.Logger
	st, err := e.openStore(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	p := newProgress(e.stderr)
	opts.Store, opts.Progress, opts.Version, opts.StopGrace = st, p.update, version, e.stopGrace
	opts.AcceptLaunches = e.acceptLaunches
	gw, err := gateway.New(cfg, opts)
	if err != nil {
		p.finish()
		st.Close()
		return nil, nil, err
	}
	connect := func(ctx context.Context) {
		err := gw.Start(ctx)
		p.finish()
		if err != nil {
			log.Debug("some servers did not connect; serving the others", "err", err)
		}
	}
	return &started{gw: gw, store: st}, connect, nil
}

// serveGCPercent is serve's GOGC when the environment sets none.
const serveGCPercent = 200

// serveGC sets serve's GC target: GOGC from the environment wins.
func serveGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(serveGCPercent)
	}
}

func newServeCmd(e *env) *cobra.Command {
	var listen, stdioEndpoint string
	var stdio, watch bool
	var drain time.Duration
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the gateway: import, govern, export over HTTP (and stdio)",
		Long: `Run the gateway. Every configured server is started (stdio) or dialled
(http, sse) in parallel; their tools are served, under the configured policy:

  /mcp                  every tool, under the top-level policy
  /mcp/<name>           each virtual server: its own tools and policy
  /healthz /readyz      liveness; readiness (every enabled server connected)
  /metrics              Prometheus text format
  /console/             the operator console (when built in)

With --stdio the default endpoint (or --endpoint NAME) is served on standard
input and output instead, for clients that start their servers themselves.

The configuration is reloaded on SIGHUP and on "agentadapter reload", and
with --watch when the file (or the file it includes) changes: an editor or
an agent writing the client's file does not reload by itself. A reload
applies every section at once (auth, console operators, policies, servers,
virtual servers) or is refused, naming the section, and the configuration
in force is kept whole: a bad file, or a change of "store" or "listen"
(which need a restart). New servers connect, removed ones close, changed
ones reconnect; live sessions continue, but those of a token the reload
revokes end (and, when auth is turned on, those opened without one).
SIGINT or SIGTERM drain calls in flight (up to --drain), then stop every
server process.

The garbage collector runs at GOGC=200 unless the GOGC environment
variable is set (a gateway's heap is small and short-lived: this halves
its collections for a few MB more memory); GOMEMLIMIT caps it as usual.` + exitCodesHelp,
		Args: argsErr(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			serveGC()
			cfg, err := e.loadConfig("")
			if err != nil {
				return err
			}
			if listen != "" {
				cfg.Gateway.Listen = listen
			}
			log := e.logger(slog.LevelInfo)
			// A reload whose console section the console refuses is
			// refused whole, before anything of it is in force.
			var mounted atomic.Pointer[consoleMount]
			check := func(cfg *config.Config) error {
				m := mounted.Load()
				if m == nil || cfg.Gateway.Console == nil {
					return nil
				}
				c, err := m.build(cfg)
				if err != nil {
					return &gateway.ReloadError{Section: "agentadapter.console", Err: err}
				}
				return c.Close()
			}
			s, connect, err := e.newGateway(ctx, cfg, gateway.Options{Logger: log, Supervise: true, Check: check})
			if err != nil {
				return err
			}
			defer s.close()
			// Over HTTP the servers connect once the port is open (below);
			// reloads wait for them.
			connected := make(chan struct{})
			if stdio {
				// The client waits for the tools it started us for.
				connect(ctx)
				close(connected)
			}
			requests := make(chan reloadRequest)
			ctl, err := listenControl(ctx, cfg.File, requests, log)
			if err != nil {
				// SIGHUP still reloads.
				log.Warn("agentadapter reload cannot reach this gateway", "err", err)
			} else {
				defer ctl.close()
			}
			wctx, stopWatch := context.WithCancel(ctx)
			watched := make(chan struct{})
			go func() {
				defer close(watched)
				select {
				case <-connected:
				case <-wctx.Done():
					return
				}
				e.watchConfig(wctx, s.gw, watchOptions{file: cfg.File, listen: listen, watch: watch, requests: requests}, log)
			}()
			defer func() { stopWatch(); <-watched }()
			if stdio {
				if _, ok := s.gw.Executor(stdioEndpoint); !ok {
					return usageErr("no endpoint %q", stdioEndpoint)
				}
				return s.gw.ServeStdio(ctx, stdioEndpoint)
			}
			var mount http.Handler
			con, err := newConsole(cfg, s.gw, s.store, log)
			if err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("console: %w", err)}
			}
			if con != nil {
				defer con.Close()
				mount = con
				mounted.Store(con)
			}
			h, err := s.gw.Handler(&gateway.HTTPOptions{Console: mount})
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			ln, err := export.Listen(cfg.Gateway.Listen)
			if err != nil {
				return err
			}
			// The port is open before the servers connect: /healthz answers
			// at once, /readyz names the servers not ready yet, and MCP
			// clients see each server's tools as it connects (list_changed).
			base := "http://" + ln.Addr().String()
			log.Info("listening", "addr", ln.Addr().String())
			cctx, stopConnect := context.WithCancel(ctx)
			go func() {
				defer close(connected)
				connect(cctx)
				if cctx.Err() != nil {
					return
				}
				var urls []string
				for _, n := range s.gw.Endpoints() {
					urls = append(urls, strings.TrimSuffix(base+"/mcp/"+n, "/"))
				}
				log.Info("serving", "config", cfg.File, "tools", s.gw.Registry().Len(), "endpoints", strings.Join(urls, " "))
				if isTerminal(e.stderr) {
					fmt.Fprintf(e.stderr, "serving %d tools at %s (Ctrl-C to stop)\n", s.gw.Registry().Len(), strings.Join(urls, ", "))
				}
			}()
			// The gateway closes once its start has stopped.
			defer func() { stopConnect(); <-connected }()
			return s.gw.Serve(ctx, ln, h, drain)
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "", "HTTP address (default from the config, else 127.0.0.1:8931)")
	f.BoolVar(&stdio, "stdio", false, "serve MCP on standard input and output instead of HTTP")
	f.StringVar(&stdioEndpoint, "endpoint", "", "with --stdio: the virtual server to serve")
	f.DurationVar(&drain, "drain", 10*time.Second, "how long calls in flight may finish on shutdown")
	f.BoolVar(&watch, "watch", false, "also reload when the configuration file (or the file it includes) changes")
	return cmd
}

// watchOptions configure watchConfig.
type watchOptions struct {
	file string
	// listen is serve's --listen, applied to each new configuration as at
	// start, so that it is not taken for a change.
	listen string
	// watch also reloads when the files change.
	watch    bool
	requests <-chan reloadRequest
}

// watchConfig reloads on SIGHUP, on each request (agentadapter reload)
// and, with opts.watch, when the configuration file (or a file it
// includes) changes. One reload runs at a time.
func (e *env) watchConfig(ctx context.Context, gw *gateway.Gateway, opts watchOptions, log *slog.Logger) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	var tick <-chan time.Time
	if opts.watch {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
	}
	last := fingerprint(gw.Config())
	for {
		var req reloadRequest
		select {
		case <-ctx.Done():
			return
		case <-hup:
			req.why = "SIGHUP"
		case req = <-opts.requests:
		case <-tick:
			if fp := fingerprint(gw.Config()); fp != last {
				req.why = "file changed"
			}
		}
		if req.why == "" {
			continue
		}
		out := e.reload(ctx, gw, opts, req.why, log)
		last = fingerprint(gw.Config())
		if req.reply != nil {
			req.reply <- out
		}
	}
}

// reload reads the configuration again and applies it whole, or refuses
// it and logs why, naming the section.
func (e *env) reload(ctx context.Context, gw *gateway.Gateway, opts watchOptions, why string, log *slog.Logger) reloadOutcome {
	out := reloadOutcome{PID: os.Getpid(), Outcome: "refused"}
	cfg, err := e.loadConfig(opts.file)
	if err == nil {
		if opts.listen != "" {
			cfg.Gateway.Listen = opts.listen
		}
		err = gw.Reload(ctx, cfg)
	}
	var re *gateway.ReloadError
	switch {
	case errors.As(err, &re):
		out.Section, out.Error = re.Section, err.Error()
		log.Error("reload refused; keeping the configuration in force", "why", why, "section", re.Section, "err", err)
	case err != nil && cfg == nil:
		out.Section, out.Error = "file", err.Error()
		var ce *config.Error
		if errors.As(err, &ce) && ce.Path != "" {
			out.Section = ce.Path
		}
		log.Error("reload refused; keeping the configuration in force", "why", why, "section", out.Section, "err", err)
	case err != nil:
		out.Outcome, out.Error = "applied", err.Error()
		log.Warn("reloaded; some servers did not connect (retrying)", "why", why, "err", err)
	default:
		out.Outcome = "applied"
		log.Info("reloaded", "why", why, "servers", len(cfg.Servers), "endpoints", len(gw.Endpoints()))
	}
	return out
}

// fingerprint hashes the configuration file and the file it includes.
func fingerprint(cfg *config.Config) [32]byte {
	h := sha256.New()
	files := []string{cfg.File}
	if inc := cfg.Gateway.Include; inc != "" {
		if !strings.HasPrefix(inc, "/") {
			inc = strings.TrimSuffix(cfg.File[:strings.LastIndex(cfg.File, "/")+1], "/") + "/" + inc
		}
		files = append(files, inc)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		h.Write(b)
		h.Write([]byte{0})
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}
