package einoadapter_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/internal/testpeers"
)

var update = flag.Bool("update", false, "rewrite testdata from the real MCP peers")

const everythingFile = "testdata/everything_tools.json"

// corpusTool is one tool of the corpus: its schemas as the server sent them.
type corpusTool struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// TestUpdateEverythingCorpus refreshes testdata/everything_tools.json from
// a running @modelcontextprotocol/server-everything (go test -run
// TestUpdateEverythingCorpus -update).
func TestUpdateEverythingCorpus(t *testing.T) {
	if !*update {
		t.Skip("run with -update to refresh the corpus")
	}
	cmd := testpeers.Command(t, "mcp-server-everything", "stdio")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "einoadapter-corpus", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var tools []corpusTool
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		ct := corpusTool{Name: tl.Name}
		if ct.InputSchema, err = json.Marshal(tl.InputSchema); err != nil {
			t.Fatal(err)
		}
		if tl.OutputSchema != nil {
			if ct.OutputSchema, err = json.Marshal(tl.OutputSchema); err != nil {
				t.Fatal(err)
			}
		}
		tools = append(tools, ct)
	}
	if len(tools) == 0 {
		t.Fatal("the server listed no tools")
	}
	b, err := json.MarshalIndent(tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.FromSlash(everythingFile), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d tools to %s", len(tools), everythingFile)
}

func loadCorpus(t *testing.T) []corpusTool {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(everythingFile))
	if err != nil {
		t.Fatal(err)
	}
	var tools []corpusTool
	if err := json.Unmarshal(b, &tools); err != nil {
		t.Fatal(err)
	}
	return tools
}
