package mcpadapter

import (
	"encoding/json"
	"testing"
)

// FuzzTaskWire feeds the parsers of the tasks wrapper what an upstream or
// a caller may send: they never panic, and what they write is JSON.
func FuzzTaskWire(f *testing.F) {
	f.Add([]byte(`{"task":{"taskId":"t1","status":"working","pollInterval":1000}}`))
	f.Add([]byte(`{"resultType":"task","taskId":"t2","status":"working","pollIntervalMs":20}`))
	f.Add([]byte(`{"name":"x","arguments":{},"_meta":{"agentadapter/task-ttl":60000,"k":1}}`))
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":null}}}`))
	f.Add([]byte(`{"capabilities":{"extensions":{"a":{}}}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(what string, out json.RawMessage) {
			if out != nil && !json.Valid(out) {
				t.Fatalf("%s wrote invalid JSON %q", what, out)
			}
		}
		out, _ := taskAnswer(data)
		check("taskAnswer", out)
		out, _ = asTaskCall(data)
		check("asTaskCall", out)
		check("declareTasks", declareTasks(data, "_meta", "io.modelcontextprotocol/clientCapabilities"))
		check("declareTasks", declareTasks(data, "capabilities"))
	})
}
