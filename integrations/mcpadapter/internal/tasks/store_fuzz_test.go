package tasks

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/taskwire"
)

// FuzzTaskUpdate feeds a task's update what a caller may send as its
// inputResponses (it was part of the root package's FuzzTaskWire): it
// never panics, and what it keeps is JSON.
func FuzzTaskUpdate(f *testing.F) {
	f.Add([]byte(`{"task":{"taskId":"t1","status":"working","pollInterval":1000}}`))
	f.Add([]byte(`{"resultType":"task","taskId":"t2","status":"working","pollIntervalMs":20}`))
	f.Add([]byte(`{"name":"x","arguments":{},"_meta":{"agentadapter/task-ttl":60000,"k":1}}`))
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":null}}}`))
	f.Add([]byte(`{"capabilities":{"extensions":{"a":{}}}}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"k":{"action":"accept","content":{}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st := NewStore(nil, nil)
		defer st.Close()
		tk := &task{status: taskwire.InputRequired, pending: mcp.InputRequestMap{"k": &mcp.ElicitParams{}},
			answers: map[string]json.RawMessage{}, wake: make(chan struct{})}
		st.mu.Lock()
		err := st.updateLocked(tk, data)
		st.mu.Unlock()
		if err == nil && len(tk.pending) == 0 && !json.Valid(tk.answers["k"]) {
			t.Fatalf("answer kept as invalid JSON: %q", tk.answers["k"])
		}
	})
}
