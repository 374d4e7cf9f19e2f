package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
	"github.com/agentadapter/agentadapter/termtext"
)

// env is what every command shares: streams and global flags.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	configPath string
	storeSpec  string
	jsonOut    bool
	verbose    bool
	// acceptLaunches accepts the launches of the stdio servers a command
	// starts (gateway.Options.AcceptLaunches).
	acceptLaunches bool

	// stopGrace is the gateway's StopGrace: call and inspect, which
	// have their answer, set oneShotStopGrace.
	stopGrace time.Duration
}

const exitCodesHelp = `
Exit codes:
  0  success
  1  failure: a server, the store or the network
  2  bad usage or configuration
  3  the tool call failed (its payload is printed)
  4  the tool call awaits approval (its ticket is printed)`

func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "agentadapter",
		Short: "A governed MCP gateway from the config file you already have",
		Long: `agentadapter reads the MCP servers you already list for your editor or
desktop client ("mcpServers" JSON, VS Code "servers" + "inputs"), puts policy
on every call (approval, cache, limits, timeouts, a ledger, definition pins)
and serves them again over MCP (streamable HTTP or stdio).

Settings of its own go in an "agentadapter" section of the same file, or in
a file of their own that includes yours ("include": "mcp.json").` + exitCodesHelp,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr("%v (see %s --help)", err, c.CommandPath())
	})
	pf := root.PersistentFlags()
	pf.StringVarP(&e.configPath, "config", "c", defaultConfig(), "configuration file (env AGENTADAPTER_CONFIG; default: the first of "+strings.Join(configCandidates, ", ")+" found here)")
	pf.StringVar(&e.storeSpec, "store", "", "override the store: sqlite:PATH or memory:")
	pf.BoolVar(&e.jsonOut, "json", false, "print JSON")
	pf.BoolVarP(&e.verbose, "verbose", "v", false, "debug logs, as JSON, on standard error")
	pf.BoolVar(&e.acceptLaunches, "accept-launches", false, "accept (pin, with a ledger record) the launch of every configured stdio server started now; without it a launch no operator accepted is not started (see: agentadapter servers)")
	root.AddCommand(newConfigCmd(e), newServeCmd(e), newCallCmd(e), newInspectCmd(e), newLedgerCmd(e),
		newApprovalsCmd(e), newPinsCmd(e), newServersCmd(e), newReloadCmd(e), newVersionCmd(e))
	return root
}

// configCandidates are tried, in order, when neither --config nor
// AGENTADAPTER_CONFIG names a file: ours, then the files clients keep in a
// project (Claude Code, VS Code, Cursor).
var configCandidates = []string{"agentadapter.json", ".mcp.json", ".vscode/mcp.json", ".cursor/mcp.json", "mcp.json"}

func defaultConfig() string {
	if p := os.Getenv("AGENTADAPTER_CONFIG"); p != "" {
		return p
	}
	return ""
}

// findConfig returns the first of configCandidates in the working
// directory.
func findConfig() (string, error) {
	for _, c := range configCandidates {
		if _, err := os.Stat(c); err == nil {
			return c, nil
		}
	}
	return "", usageErr("no configuration: pass --config FILE or set AGENTADAPTER_CONFIG (looked for %s here)", strings.Join(configCandidates, ", "))
}

// loadConfig reads the configuration; errors exit with code 2.
func (e *env) loadConfig(path string) (*config.Config, error) {
	if path == "" {
		path = e.configPath
	}
	if path == "" {
		var err error
		if path, err = findConfig(); err != nil {
			return nil, err
		}
		// A file found in the working directory may be a repository's,
		// written by whoever wrote the repository: say which one is used.
		fmt.Fprintf(e.stderr, "agentadapter: using %s found in the working directory (pass --config to choose)\n", termtext.Line(path))
	}
	opts := &config.Options{}
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		opts.Prompt = func(in *config.Input) (string, error) { return prompt(f, e.stderr, in) }
	}
	cfg, err := config.Load(path, opts)
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			return nil, &exitError{code: exitUsage, err: err}
		}
		return nil, err
	}
	if e.storeSpec != "" {
		cfg.Gateway.Store = e.storeSpec
	}
	return cfg, nil
}

func prompt(in *os.File, out io.Writer, def *config.Input) (string, error) {
	q := def.Description
	if q == "" {
		q = def.ID
	}
	if def.Default != "" && !def.Password {
		q += " [" + def.Default + "]"
	}
	// The description comes from the client file, which an editor or an
	// agent may have written.
	fmt.Fprintf(out, "%s: ", termtext.Line(q))
	var v string
	if def.Password {
		b, err := term.ReadPassword(int(in.Fd()))
		fmt.Fprintln(out)
		if err != nil {
			return "", err
		}
		v = string(b)
	} else {
		line, err := bufio.NewReader(in).ReadString('\n')
		if err != nil && line == "" {
			return "", err
		}
		v = strings.TrimRight(line, "\r\n")
	}
	if v == "" {
		v = def.Default
	}
	return v, nil
}

// openStore opens the configured store.
func (e *env) openStore(ctx context.Context, cfg *config.Config) (state.Store, error) {
	spec := cfg.Gateway.Store
	if e.storeSpec != "" {
		spec = e.storeSpec
	}
	s, err := state.Open(ctx, spec, &state.Options{TokenKeys: perCallerKeys(cfg)})
	if err != nil {
		return nil, fmt.Errorf("opening the store: %w", err)
	}
	return s, nil
}

// perCallerKeys is the keyring of per-user upstream tokens
// (AGENTADAPTER_TOKEN_KEY(_FILE)) when a server of cfg is oauth.perCaller,
// else nil: the store seals those tokens in its token table with it. A
// missing or bad key is nil here; serve then refuses to start, saying so,
// and the commands that only read the store work without it.
func perCallerKeys(cfg *config.Config) *token.Keyring {
	if cfg == nil || cfg.Gateway == nil {
		return nil
	}
	for _, p := range cfg.Gateway.Servers {
		if p != nil && p.OAuth != nil && p.OAuth.PerCaller {
			keys, err := token.LoadKeyring(token.KeyringOptions{})
			if err != nil {
				return nil
			}
			return keys
		}
	}
	return nil
}

// storeOnly opens the store for commands that need no servers: the
// --store flag, or the store of the configuration file.
func (e *env) storeOnly(ctx context.Context) (state.Store, error) {
	if e.storeSpec != "" {
		return e.openStore(ctx, &config.Config{Gateway: &config.Section{}})
	}
	cfg, err := e.loadConfig("")
	if err != nil {
		return nil, err
	}
	return e.openStore(ctx, cfg)
}

// logger returns the logger: text at level for people, JSON at debug
// with -v; secrets in its records masked (maskLogs).
func (e *env) logger(level slog.Level) *slog.Logger {
	if e.verbose {
		return slog.New(maskLogs(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelDebug})))
	}
	return slog.New(maskLogs(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level})))
}

// isTerminal reports whether w is a terminal (progress and colour only then).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Long: `Print the version; with --json, {"version": "...", "go": "..."}: the
release and the Go toolchain the binary was built with.`,
		Args: argsErr(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			if e.jsonOut {
				return printJSON(e.stdout, struct {
					Version string `json:"version"`
					Go      string `json:"go"`
				}{version, runtime.Version()}, false)
			}
			fmt.Fprintln(e.stdout, "agentadapter", version)
			return nil
		},
	}
}

func newConfigCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Check configuration files"}
	cmd.AddCommand(&cobra.Command{
		Use:   "check [FILE]",
		Short: "Validate a configuration and print it in effect, secrets masked",
		Long: `Validate a configuration file (and the file it includes) and print the
effective configuration: variables expanded, paths resolved, defaults filled
in, secrets masked by name and by structure: tokens, values of secret-looking
env vars, headers and flags (--api-key X, --token=X), URL credentials and
secret query parameters (sig=, token=), DSN passwords.

Stdio commands must exist (on PATH, or at the path given); inbound and
operator tokens must have at least 32 characters; files holding tokens or
keys must be writable by their owner only.

A bad configuration prints one line naming the file, the line, the JSON path
and what is wrong, and exits with code 2.`,
		Args: argsErr(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			path := ""
			if len(args) == 1 {
				path = args[0]
			}
			cfg, err := e.loadConfig(path)
			if err != nil {
				return err
			}
			if err := cfg.CheckCommands(); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			out, err := cfg.Masked()
			if err != nil {
				return err
			}
			// A value may come from a repository's file: C1 controls and
			// bidi overrides are escaped as JSON escapes, as --json does.
			fmt.Fprintln(e.stdout, string(jsonSafe(out)))
			return nil
		},
	})
	return cmd
}

// argsErr wraps cobra's argument validators so that misuse exits with 2.
func argsErr(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := v(c, args); err != nil {
			return usageErr("%v (see %s --help)", err, c.CommandPath())
		}
		return nil
	}
}
