package mcpadapter

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/termtext"
)

// An ElicitationPort puts a server's elicitation/create request to a
// person and returns the answer: Action "accept" with Content (form mode)
// or with no content (URL mode, once the user has opened the URL),
// "decline", or "cancel". It must honour ctx: when the wait exceeds
// ManagerOptions.ElicitationTimeout the request is answered "cancel".
//
// params.Mode is "form" (RequestedSchema is a flat object schema of
// primitive properties) or "url" (URL is to be opened by the user). The
// go-sdk validates accepted content against the schema and fills in the
// schema's defaults for fields left out (SEP-1034).
type ElicitationPort func(ctx context.Context, server string, params *mcp.ElicitParams) (*mcp.ElicitResult, error)

// elicit answers an elicitation request through the executor.
func (c *conn) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if req == nil || req.Params == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "elicitation/create without params"}
	}
	p := req.Params
	summary := map[string]any{"server": c.cfg.Name, "mode": cmp.Or(p.Mode, "form"), "message": p.Message}
	if p.RequestedSchema != nil {
		summary["requestedSchema"] = p.RequestedSchema
	}
	if p.URL != "" {
		summary["url"] = p.URL
	}
	var out *mcp.ElicitResult
	err := c.govern(ctx, c.elicitSpec, firstPositive(c.m.opts.ElicitationTimeout, DefaultElicitationTimeout), summary,
		func(ctx context.Context) (*adapter.Result, error) {
			res, err := c.m.opts.Elicitation(ctx, c.cfg.Name, p)
			if err != nil {
				return nil, err
			}
			switch {
			case res == nil:
				return nil, adapter.NewError(adapter.KindToolError, "the elicitation port returned no answer")
			case res.Action != "accept" && res.Action != "decline" && res.Action != "cancel":
				return nil, adapter.NewError(adapter.KindToolError, fmt.Sprintf("the elicitation port answered %q", truncate(res.Action, 40)))
			}
			if res.Action != "accept" {
				res.Content = nil
			}
			out = res
			return &adapter.Result{Content: []adapter.Content{&adapter.TextContent{Text: res.Action}}}, nil
		})
	if err != nil {
		switch kindOf(err) {
		case adapter.KindApprovalDenied, adapter.KindGuardrailBlocked, adapter.KindRunLimitExceeded, adapter.KindApprovalPending:
			return &mcp.ElicitResult{Action: "decline"}, nil
		case adapter.KindTimeout:
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		if ctx.Err() != nil {
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the client could not answer the elicitation: " + truncate(errMessage(err), 300)}
	}
	return out, nil
}

// PromptElicitation returns an ElicitationPort for command-line programs:
// it writes the server's message to out and reads the answer from in, one
// line per field, showing each field's description, allowed values and
// default (an empty line keeps the default, or leaves an optional field
// out). "!decline" or "!cancel" on any line answers so. Prompts from
// several servers are put one at a time.
//
// A read from in cannot be interrupted: when ctx ends mid-prompt the
// request is cancelled, and the line the user was typing goes to the next
// prompt. One goroutine reads in until it ends.
func PromptElicitation(in io.Reader, out io.Writer) ElicitationPort {
	p := &prompter{lines: make(chan string), out: out}
	go p.read(in)
	return p.elicit
}

type prompter struct {
	mu    sync.Mutex // one prompt at a time
	lines chan string
	out   io.Writer
}

func (p *prompter) read(in io.Reader) {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		p.lines <- sc.Text()
	}
	close(p.lines)
}

func (p *prompter) ask(ctx context.Context, prompt string) (string, error) {
	fmt.Fprint(p.out, prompt)
	select {
	case l, ok := <-p.lines:
		if !ok {
			return "", io.EOF
		}
		return strings.TrimSpace(l), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (p *prompter) elicit(ctx context.Context, server string, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// Everything the server sent is escaped for the terminal, and framed:
	// each line of its message after the first starts with a bar, and
	// each field's prompt with the server's name, so that the server
	// cannot draw a prompt of its own ("[sudo] password:") or a link
	// whose text hides its target.
	server = termtext.Line(server)
	fmt.Fprintf(p.out, "\n%s asks: %s\n", server, strings.ReplaceAll(termtext.Block(strings.TrimRight(params.Message, "\n")), "\n", "\n  | "))
	action := func(line string) string {
		switch line {
		case "!decline":
			return "decline"
		case "!cancel":
			return "cancel"
		}
		return ""
	}
	if params.Mode == "url" {
		fmt.Fprintf(p.out, "Open: %s\n", termtext.Line(params.URL))
		l, err := p.ask(ctx, "Open it? [y/N] ")
		if err != nil {
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		if a := action(l); a != "" {
			return &mcp.ElicitResult{Action: a}, nil
		}
		if strings.EqualFold(l, "y") || strings.EqualFold(l, "yes") {
			return &mcp.ElicitResult{Action: "accept"}, nil
		}
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	schema, err := formSchema(params.RequestedSchema)
	if err != nil {
		return nil, err
	}
	content := map[string]any{}
	for _, name := range fieldOrder(schema) {
		f := schema.Properties[name]
		required := slices.Contains(schema.Required, name)
		for {
			l, err := p.ask(ctx, fieldPrompt(server, name, f, required))
			if err != nil {
				return &mcp.ElicitResult{Action: "cancel"}, nil
			}
			if a := action(l); a != "" {
				return &mcp.ElicitResult{Action: a}, nil
			}
			if l == "" {
				if f.Default != nil || !required {
					break // go-sdk fills the default in
				}
				fmt.Fprintln(p.out, "  a value is required")
				continue
			}
			v, err := parseField(f, l)
			if err != nil {
				fmt.Fprintf(p.out, "  %v\n", err)
				continue
			}
			content[name] = v
			break
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// formSchema decodes a requested schema (go-sdk hands it over as decoded
// JSON).
func formSchema(s any) (*jsonschema.Schema, error) {
	if s == nil {
		return &jsonschema.Schema{Type: "object"}, nil
	}
	if js, ok := s.(*jsonschema.Schema); ok {
		return js, nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(b, &js); err != nil {
		return nil, fmt.Errorf("the requested schema is not a JSON schema: %w", err)
	}
	return &js, nil
}

func fieldOrder(s *jsonschema.Schema) []string {
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	// Keep the server's order when it gave one, else alphabetical.
	slices.SortFunc(names, func(a, b string) int {
		ia, ib := slices.Index(s.PropertyOrder, a), slices.Index(s.PropertyOrder, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	return names
}

// fieldPrompt is the prompt of one field, every word of the server's
// escaped, after the (escaped) server name.
func fieldPrompt(server, name string, f *jsonschema.Schema, required bool) string {
	var b strings.Builder
	b.WriteString("  ")
	b.WriteString(server)
	b.WriteString(" > ")
	b.WriteString(termtext.Line(cmp.Or(f.Title, name)))
	if f.Description != "" {
		fmt.Fprintf(&b, " (%s)", termtext.Line(f.Description))
	}
	if vals := enumValues(f); len(vals) > 0 {
		fmt.Fprintf(&b, " [%s]", termtext.Line(strings.Join(vals, "|")))
	} else if t := f.Type; t != "" && t != "string" {
		fmt.Fprintf(&b, " <%s>", termtext.Line(t))
	}
	if f.Default != nil {
		fmt.Fprintf(&b, " default %s", termtext.Line(string(f.Default)))
	} else if !required {
		b.WriteString(" (optional)")
	}
	b.WriteString(": ")
	return b.String()
}

func enumValues(f *jsonschema.Schema) []string {
	var out []string
	for _, v := range f.Enum {
		out = append(out, fmt.Sprint(v))
	}
	for _, o := range f.OneOf {
		if o.Const != nil {
			out = append(out, fmt.Sprint(*o.Const))
		}
	}
	return out
}

func parseField(f *jsonschema.Schema, s string) (any, error) {
	if vals := enumValues(f); len(vals) > 0 && !slices.Contains(vals, s) {
		return nil, fmt.Errorf("choose one of %s", termtext.Line(strings.Join(vals, ", ")))
	}
	switch f.Type {
	case "boolean":
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, errors.New("answer true or false")
		}
		return b, nil
	case "integer":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, errors.New("answer a whole number")
		}
		return n, nil
	case "number":
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, errors.New("answer a number")
		}
		return n, nil
	}
	return s, nil
}
