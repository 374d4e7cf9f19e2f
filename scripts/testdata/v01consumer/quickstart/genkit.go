package main

import (
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	oai "github.com/firebase/genkit/go/plugins/compat_oai/openai"
	"github.com/openai/openai-go/option"

	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
)

// runGenkit asks the question through genkit.Generate. The approval
// becomes a genkit tool interrupt; genkitadapter.Resume approves and
// restarts it.
func runGenkit(ctx context.Context, e *env) (string, error) {
	var plugins []genkit.GenkitOption
	if e.llm != nil {
		plugins = append(plugins, genkit.WithPlugins(&oai.OpenAI{APIKey: e.llm.key, Opts: []option.RequestOption{
			option.WithBaseURL(e.llm.baseURL), option.WithRequestTimeout(time.Minute),
		}}))
	}
	g := genkit.Init(ctx, plugins...)
	// genkit.Init captures SIGINT and SIGTERM for the life of the process;
	// give them back.
	signal.Reset(os.Interrupt, syscall.SIGTERM)

	tools, err := genkitadapter.Tools(g, e.reg, e.exec, nil)
	if err != nil {
		return "", err
	}
	var mdl ai.GenerateOption
	if e.llm != nil {
		// The plugin defines its known models and resolves any other name
		// (an OpenAI-compatible server's) on first use.
		mdl = ai.WithModelName("openai/" + e.llm.model)
	} else {
		m := &genkitModel{steps: script("genkit")}
		mdl = ai.WithModel(genkit.DefineModel(g, "quickstart/scripted",
			&ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true}}, m.generate))
	}
	opts := []ai.GenerateOption{mdl, ai.WithTools(tools...), ai.WithMaxTurns(20), ai.WithMiddleware(genkitadapter.UnknownToolsMiddleware(e.exec))}
	resp, err := genkit.Generate(ctx, g, append(opts, ai.WithPrompt(question))...)
	for err == nil && resp.FinishReason == ai.FinishReasonInterrupted {
		resp, err = genkitadapter.Resume(ctx, g, resp, func(ctx context.Context, a *genkitadapter.Approval) error {
			return e.approve(ctx, a.Ticket, a.Tool, string(a.Args))
		}, opts...)
	}
	if err != nil {
		return "", err
	}
	return resp.Text(), nil
}

// genkitModel is a scripted genkit model: one tool request per turn, then
// an answer quoting what the tools returned.
type genkitModel struct {
	mu    sync.Mutex
	steps []step
	n     int
}

func (m *genkitModel) generate(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n < len(m.steps) {
		s := m.steps[m.n]
		m.n++
		var input map[string]any
		if err := json.Unmarshal([]byte(s.args), &input); err != nil {
			return nil, err
		}
		part := ai.NewToolRequestPart(&ai.ToolRequest{Name: s.tool, Ref: s.tool, Input: input})
		return &ai.ModelResponse{Request: req, Message: ai.NewMessage(ai.RoleModel, nil, part)}, nil
	}
	var read []string
	for _, msg := range req.Messages {
		if msg.Role != ai.RoleTool {
			continue
		}
		for _, p := range msg.Content {
			if p.ToolResponse != nil {
				// The output is the text the model reads.
				text, ok := p.ToolResponse.Output.(string)
				if !ok {
					b, _ := json.Marshal(p.ToolResponse.Output)
					text = string(b)
				}
				read = append(read, p.ToolResponse.Name+"="+text)
			}
		}
	}
	return &ai.ModelResponse{Request: req, Message: ai.NewModelTextMessage("I read: " + strings.Join(read, "; "))}, nil
}
