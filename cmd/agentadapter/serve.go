package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/gateway"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
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
	st, err := e.openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	p := newProgress(e.stderr)
	gw, err := gateway.New(cfg, gateway.Options{Logger: log, Store: st, Progress: p.update, Version: version, Supervise: supervise})
	if err != nil {
		p.finish()
		st.Close()
		return nil, err
	}
	err = gw.Start(ctx)
	p.finish()
	if err != nil {
		log.Debug("some servers did not connect; serving the others", "err", err)
	}
	return &started{gw: gw, store: st}, nil
}

func newServeCmd(e *env) *cobra.Command {
	var listen, stdioEndpoint string
	var stdio bool
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

The configuration is reloaded on SIGHUP and when the file changes: new
servers connect, removed ones close, changed ones reconnect; live sessions
continue. A bad configuration is refused and the one in force kept.
SIGINT or SIGTERM drain calls in flight (up to --drain), then stop every
server process.` + exitCodesHelp,
		Args: argsErr(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			cfg, err := e.loadConfig("")
			if err != nil {
				return err
			}
			if listen != "" {
				cfg.Gateway.Listen = listen
			}
			log := e.logger(slog.LevelInfo)
			s, err := e.start(ctx, cfg, log, true)
			if err != nil {
				return err
			}
			defer s.close()
			go e.watchConfig(ctx, s.gw, cfg.File, log)
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
			}
			h, err := s.gw.Handler(&gateway.HTTPOptions{Console: mount})
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			ln, err := mcpadapter.Listen(cfg.Gateway.Listen)
			if err != nil {
				return err
			}
			base := "http://" + ln.Addr().String()
			var urls []string
			for _, n := range s.gw.Endpoints() {
				urls = append(urls, strings.TrimSuffix(base+"/mcp/"+n, "/"))
			}
			log.Info("serving", "tools", s.gw.Registry().Len(), "endpoints", strings.Join(urls, " "))
			if isTerminal(e.stderr) {
				fmt.Fprintf(e.stderr, "serving %d tools at %s (Ctrl-C to stop)\n", s.gw.Registry().Len(), strings.Join(urls, ", "))
			}
			return s.gw.Serve(ctx, ln, h, drain)
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "", "HTTP address (default from the config, else 127.0.0.1:8931)")
	f.BoolVar(&stdio, "stdio", false, "serve MCP on standard input and output instead of HTTP")
	f.StringVar(&stdioEndpoint, "endpoint", "", "with --stdio: the virtual server to serve")
	f.DurationVar(&drain, "drain", 10*time.Second, "how long calls in flight may finish on shutdown")
	return cmd
}

// watchConfig reloads on SIGHUP and when the configuration file (or a
// file it includes) changes.
func (e *env) watchConfig(ctx context.Context, gw *gateway.Gateway, file string, log *slog.Logger) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	last := fingerprint(gw.Config())
	for {
		why := ""
		select {
		case <-ctx.Done():
			return
		case <-hup:
			why = "SIGHUP"
		case <-t.C:
			if fp := fingerprint(gw.Config()); fp != last {
				why = "file changed"
			}
		}
		if why == "" {
			continue
		}
		cfg, err := e.loadConfig(file)
		if err != nil {
			last = fingerprint(gw.Config())
			log.Error("reload refused; keeping the configuration in force", "why", why, "err", err)
			continue
		}
		if e.storeSpec == "" && cfg.Gateway.Store != gw.Config().Gateway.Store {
			log.Warn("reload: the store changes only on restart", "store", gw.Config().Gateway.Store)
			cfg.Gateway.Store = gw.Config().Gateway.Store
		}
		cfg.Gateway.Listen = gw.Config().Gateway.Listen
		if err := gw.Reload(ctx, cfg); err != nil {
			log.Warn("reloaded, with errors", "why", why, "err", err)
		} else {
			log.Info("reloaded", "why", why)
		}
		last = fingerprint(cfg)
	}
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
