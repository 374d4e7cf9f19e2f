package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/termtext"
)

func newCallCmd(e *env) *cobra.Command {
	var endpoint, subject string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "call TOOL [ARGS]",
		Short: "Make one governed call and print both channels",
		Long: `Connect the configured servers, make one call through the same policy as
serve (approval, limits, cache, timeout, ledger), print what the model reads
(content) and what a program reads (structured content), and exit.

ARGS is a JSON object (default {}), "-" to read it from standard input, or
@FILE. A call that needs approval prints its ticket and exits with code 4:
approve it (agentadapter approvals approve TICKET) and run the same call
again; with a shared store (sqlite) that works from any process.` + exitCodesHelp,
		Example: `  agentadapter call echo '{"message":"hi"}'
  agentadapter call --endpoint readonly get-sum '{"a":1,"b":2}' --json`,
		Args: argsErr(cobra.RangeArgs(1, 2)),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			raw := json.RawMessage(`{}`)
			if len(args) == 2 {
				b, err := readArg(args[1], e.stdin)
				if err != nil {
					return usageErr("%v", err)
				}
				raw = b
			}
			cfg, err := e.loadConfig("")
			if err != nil {
				return err
			}
			e.stopGrace = oneShotStopGrace
			s, err := e.start(ctx, cfg, e.logger(slog.LevelWarn), false)
			if err != nil {
				return err
			}
			defer s.close()
			exec, ok := s.gw.Executor(endpoint)
			if !ok {
				return usageErr("no endpoint %q (endpoints: %s)", endpoint, strings.Join(s.gw.Endpoints(), ", "))
			}
			spec, ok := s.gw.Registry().Lookup(args[0])
			if !ok || !s.gw.Selects(endpoint, spec) {
				// Every call has a record, a made-up name's too (and a
				// quarantined tool's, which is not served either).
				uctx := caller.WithIdentity(ctx, &caller.Identity{Subject: subject})
				exec.Unknown(uctx, &adapter.Request{Tool: args[0], Args: raw, Integration: "cli"})
				_ = exec.Flush(uctx)
				if q, ok := quarantined(s.gw.Manager().Quarantined(), clientNames(cfg), args[0]); ok {
					return &exitError{code: exitFailure, err: quarantineErr(q, args[0], cfg.File)}
				}
				return usageErr("no tool %s here; list them with: agentadapter inspect", termtext.Line(strconv.Quote(args[0])))
			}
			ctx = caller.WithIdentity(ctx, &caller.Identity{Subject: subject})
			res, err := exec.Do(ctx, &adapter.Request{Tool: args[0], Args: raw, Integration: "cli", Timeout: timeout})
			_ = exec.Flush(ctx)
			return e.printCall(res, err, cfg.File)
		},
	}
	f := cmd.Flags()
	f.StringVar(&endpoint, "endpoint", "", "call through a virtual server's policy")
	f.StringVar(&subject, "as", "cli", "the caller's identity, as the ledger and limits see it")
	f.DurationVar(&timeout, "timeout", 0, "bound the call (default: the policy's)")
	return cmd
}

// oneShotStopGrace is how long call and inspect let a stdio server exit on
// the end of its input before terminating it. They have their answer, and
// a server that ignores the end of its input (server-everything does)
// would hold them for mcpadapter.DefaultStopGrace; every child is still
// waited for.
const oneShotStopGrace = 250 * time.Millisecond

func readArg(a string, stdin io.Reader) (json.RawMessage, error) {
	var b []byte
	var err error
	switch {
	case a == "-":
		b, err = io.ReadAll(io.LimitReader(stdin, 16<<20))
	case strings.HasPrefix(a, "@"):
		b, err = os.ReadFile(a[1:])
	default:
		b = []byte(a)
	}
	if err != nil {
		return nil, err
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("ARGS is not valid JSON: %.80s", b)
	}
	return b, nil
}

// callOutput is the --json shape of a call.
type callOutput struct {
	// Text is what the model reads of the result (adapter.Render): an
	// image is a short description, never its bytes.
	Text string `json:"text"`
	// Content is the result's blocks as MCP-shaped JSON, media in base64.
	Content    []map[string]any      `json:"content,omitempty"`
	Structured json.RawMessage       `json:"structured,omitempty"`
	Error      *adapter.PayloadError `json:"error,omitempty"`
}

// printCall prints a call's outcome. Without --json it prints what the
// model reads (the same rendering every framework integration hands a
// model) and the structured content, every piece of the upstream's text
// escaped for the terminal.
func (e *env) printCall(res *adapter.Result, err error, file string) error {
	var out callOutput
	if err != nil {
		var ae *adapter.Error
		if !errors.As(err, &ae) || !ae.Kind.ModelFacing() {
			return err
		}
		payload, _ := adapter.ModelPayload(err)
		var p adapter.Payload
		_ = json.Unmarshal([]byte(payload), &p)
		out.Error = &p.Error
		out.Content = contentJSON(ae.Content)
		out.Text = adapter.Render(&adapter.Result{Content: ae.Content}, nil)
	} else {
		out.Content = contentJSON(res.Content)
		out.Structured, _ = res.StructuredJSON()
		out.Text = adapter.Render(res, nil)
	}
	if e.jsonOut {
		if err := printJSON(e.stdout, out, true); err != nil {
			return err
		}
	} else {
		if out.Error != nil {
			fmt.Fprintf(e.stdout, "error (%s): %s\n", termtext.Line(string(out.Error.Kind)), indentRest(termtext.Block(out.Error.Message)))
		}
		if out.Text != "" {
			fmt.Fprintln(e.stdout, "content (for the model):")
			fmt.Fprintln(e.stdout, indent(termtext.Block(out.Text)))
		}
		if out.Structured != nil {
			fmt.Fprintln(e.stdout, "structured (for the program):")
			b, _ := json.MarshalIndent(out.Structured, "", "  ")
			fmt.Fprintln(e.stdout, indent(string(jsonSafe(b))))
		}
	}
	if out.Error == nil {
		return nil
	}
	if out.Error.Kind == adapter.KindApprovalPending {
		t := termtext.Line(out.Error.Ticket)
		return &exitError{code: exitPending, err: fmt.Errorf("approval required: ticket %s; approve it with\n  agentadapter approvals approve %s --config %s\nthen run the same call again", t, t, termtext.Line(file))}
	}
	return &exitError{code: exitToolError, err: fmt.Errorf("the call failed: %s", termtext.Line(string(out.Error.Kind)))}
}

func indent(s string) string {
	return "  " + indentRest(s)
}

// indentRest indents every line of s but the first.
func indentRest(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// quarantined finds the quarantined tool a client would call name (as
// clientName names it, the configuration's rename applied), or name by its
// registry name, or as SERVER/TOOL or SERVER_TOOL.
func quarantined(qs []mcpadapter.Quarantine, clientName func(server, remote string) string, name string) (mcpadapter.Quarantine, bool) {
	for _, q := range qs {
		if name == clientName(q.Server, q.RemoteName) || name == q.Tool || name == mcpadapter.PinKey(q.Server, q.RemoteName) || name == q.Server+"_"+q.RemoteName {
			return q, true
		}
	}
	return mcpadapter.Quarantine{}, false
}

// quarantineErr says why the tool called name is not served and how to
// release it.
func quarantineErr(q mcpadapter.Quarantine, name, file string) error {
	server, tool := termtext.Line(q.Server), termtext.Line(q.RemoteName)
	why := "its definition changed since it was pinned (pinned " + short(q.Pinned) + ", now " + short(q.Got) + ")"
	if q.Pinned == "" {
		why = "it is new on a server that is not trusted"
	}
	return fmt.Errorf("tool %s is quarantined: %s; review the change with\n  agentadapter pins diff %s %s --config %s\nand accept it with\n  agentadapter pins accept %s %s --hash HASH --config %s",
		termtext.Line(strconv.Quote(name)), why, server, tool, termtext.Line(file), server, tool, termtext.Line(file))
}

// contentJSON renders content blocks as MCP-shaped JSON.
func contentJSON(cs []adapter.Content) []map[string]any {
	var out []map[string]any
	for _, c := range cs {
		m := map[string]any{"type": c.ContentType()}
		switch c := c.(type) {
		case *adapter.TextContent:
			m["text"] = c.Text
		case *adapter.ImageContent:
			m["mimeType"], m["data"] = c.MIMEType, base64.StdEncoding.EncodeToString(c.Data)
		case *adapter.AudioContent:
			m["mimeType"], m["data"] = c.MIMEType, base64.StdEncoding.EncodeToString(c.Data)
		case *adapter.ResourceLink:
			m["uri"], m["name"] = c.URI, c.Name
		case *adapter.EmbeddedResource:
			if c.Resource != nil {
				m["resource"] = map[string]any{"uri": c.Resource.URI, "mimeType": c.Resource.MIMEType, "text": c.Resource.Text}
			}
		}
		out = append(out, m)
	}
	return out
}
