package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentadapter/agentadapter/adapter"
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
				// Every call has a record, a made-up name's too.
				uctx := adapter.WithIdentity(ctx, &adapter.Identity{Subject: subject})
				exec.Unknown(uctx, &adapter.Request{Tool: args[0], Args: raw, Integration: "cli"})
				_ = exec.Flush(uctx)
				return usageErr("no tool %q here; list them with: agentadapter inspect", args[0])
			}
			ctx = adapter.WithIdentity(ctx, &adapter.Identity{Subject: subject})
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
	Content    []map[string]any      `json:"content,omitempty"`
	Structured json.RawMessage       `json:"structured,omitempty"`
	Error      *adapter.PayloadError `json:"error,omitempty"`
}

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
	} else {
		out.Content = contentJSON(res.Content)
		out.Structured, _ = res.StructuredJSON()
	}
	if e.jsonOut {
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
	} else {
		if out.Error != nil {
			fmt.Fprintf(e.stdout, "error (%s): %s\n", out.Error.Kind, out.Error.Message)
		}
		if len(out.Content) > 0 {
			fmt.Fprintln(e.stdout, "content (for the model):")
			for _, c := range out.Content {
				if t, ok := c["text"].(string); ok {
					fmt.Fprintln(e.stdout, indent(t))
				} else {
					b, _ := json.Marshal(c)
					fmt.Fprintln(e.stdout, indent(string(b)))
				}
			}
		}
		if out.Structured != nil {
			fmt.Fprintln(e.stdout, "structured (for the program):")
			b, _ := json.MarshalIndent(out.Structured, "", "  ")
			fmt.Fprintln(e.stdout, indent(string(b)))
		}
	}
	if out.Error == nil {
		return nil
	}
	if out.Error.Kind == adapter.KindApprovalPending {
		return &exitError{code: exitPending, err: fmt.Errorf("approval required: ticket %s; approve it with\n  agentadapter approvals approve %s --config %s\nthen run the same call again", out.Error.Ticket, out.Error.Ticket, file)}
	}
	return &exitError{code: exitToolError, err: fmt.Errorf("the call failed: %s", out.Error.Kind)}
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
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
