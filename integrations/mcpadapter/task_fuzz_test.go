package mcpadapter

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzTaskWire feeds the task store's tasks/update what a caller may
// send: it never panics, and what it keeps is JSON. (The parsers of the
// client's tasks wrapper have their FuzzTaskWire in internal/taskclient.)
func FuzzTaskWire(f *testing.F) {
	f.Add([]byte(`{"task":{"taskId":"t1","status":"working","pollInterval":1000}}`))
	f.Add([]byte(`{"resultType":"task","taskId":"t2","status":"working","pollIntervalMs":20}`))
	f.Add([]byte(`{"name":"x","arguments":{},"_meta":{"agentadapter/task-ttl":60000,"k":1}}`))
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":null}}}`))
	f.Add([]byte(`{"capabilities":{"extensions":{"a":{}}}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st := newTaskStore(nil)
		defer st.close()
		tk := &task{status: taskInputRequired, pending: mcp.InputRequestMap{"k": &mcp.ElicitParams{}},
			answers: map[string]json.RawMessage{}, wake: make(chan struct{})}
		st.mu.Lock()
		err := st.updateLocked(tk, data)
		st.mu.Unlock()
		if err == nil && len(tk.pending) == 0 && !json.Valid(tk.answers["k"]) {
			t.Fatalf("answer kept as invalid JSON: %q", tk.answers["k"])
		}
	})
}
