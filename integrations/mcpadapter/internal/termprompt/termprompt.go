// Package termprompt puts a server's elicitation to a person at a
// terminal: the server's message and one prompt per field of its form,
// everything it sent escaped for the terminal and framed.
//
//	elicit := termprompt.New(os.Stdin, os.Stderr)
//	res, err := elicit(ctx, "github", params) // accept, decline or cancel
//
// It is internal to the module: mcpadapter.PromptElicitation is its
// public face.
package termprompt

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
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/termtext"
)

// New returns the elicitation function of a prompter writing to out and
// reading the answers from in, one line per field; see
// mcpadapter.PromptElicitation. One goroutine reads in until it ends.
func New(in io.Reader, out io.Writer) func(ctx context.Context, server string, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
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
	schema, err := FormSchema(params.RequestedSchema)
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

// FormSchema decodes a requested schema (go-sdk hands it over as decoded
// JSON).
func FormSchema(s any) (*jsonschema.Schema, error) {
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
