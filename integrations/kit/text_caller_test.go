package kit_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

// events records what a ToolObserver is told.
type events struct {
	mu  sync.Mutex
	got []string
}

func (e *events) add(s string)                                 { e.mu.Lock(); e.got = append(e.got, s); e.mu.Unlock() }
func (e *events) HandleToolStart(_ context.Context, in string) { e.add("start " + in) }
func (e *events) HandleToolEnd(_ context.Context, out string)  { e.add("end " + out) }
func (e *events) HandleToolError(_ context.Context, err error) {
	e.add("error " + string(adapter.KindOf(err)))
}

func TestObserve(t *testing.T) {
	toolErr := &adapter.Error{Kind: adapter.KindToolError, Tool: "t", Message: "failed"}
	pending := &adapter.Error{Kind: adapter.KindApprovalPending, Tool: "t", Ticket: "tkt_1", Message: "held"}
	fault := &adapter.Error{Kind: adapter.KindConnection, Tool: "t", Message: "gone"}
	payload := func(err error) string { p, _ := adapter.ModelPayload(err); return p }
	for _, tt := range []struct {
		name    string
		out     string
		err     error
		want    string
		wantErr error
		events  string
	}{
		{"output", "ok", nil, "ok", nil, "[start in end ok]"},
		{"tool error", "", toolErr, payload(toolErr), nil, "[start in error tool_error]"},
		{"pending", "", pending, payload(pending), nil, "[start in error approval_pending]"},
		{"fault", "", fault, "", fault, "[start in error connection]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ev events
			got, err := kit.Observe(context.Background(), &ev, "in", func() (string, error) { return tt.out, tt.err })
			if got != tt.want || err != tt.wantErr {
				t.Errorf("Observe = %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
			if fmt.Sprint(ev.got) != tt.events {
				t.Errorf("observer told %v, want %s", ev.got, tt.events)
			}
			if got, err := kit.Observe(context.Background(), nil, "in", func() (string, error) { return tt.out, tt.err }); got != tt.want || err != tt.wantErr {
				t.Errorf("Observe(nil observer) = %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestTextCaller(t *testing.T) {
	type in struct {
		City string `json:"city"`
	}
	var deadline time.Duration
	weather := adapter.MustTool("weather", "", func(ctx context.Context, a in) (string, error) {
		if d, ok := ctx.Deadline(); ok {
			deadline = time.Until(d)
		}
		return "sunny in " + a.City, nil
	}, nil)
	hidden := adapter.MustTool("hidden", "", func(context.Context, in) (string, error) { return "", nil }, nil)
	hidden.Targets = []string{adapter.TargetMCP}
	reg := registry.New()
	reg.MustRegister(weather, hidden)
	led := adapter.NewMemoryLedger(10)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: led})
	defer exec.Close()
	ctx := context.Background()
	notFound := func(name string) string { p, _ := adapter.ModelPayload(adapter.UnknownTool(name)); return p }

	var ev events
	looked := &kit.TextCaller{Exec: exec, Registry: reg, Filter: kit.Filter(registry.Filter{}, "myfw"), Observer: &ev, Timeout: time.Hour}
	direct := &kit.TextCaller{Exec: exec}
	for _, tt := range []struct {
		name  string
		c     *kit.TextCaller
		req   *adapter.Request
		input string
		want  string
	}{
		{"spec", direct, &adapter.Request{Spec: weather, Integration: "myfw"}, "Paris", "sunny in Paris"},
		{"looked up", looked, &adapter.Request{Tool: "weather", Integration: "myfw"}, `{"city":"Oslo"}`, "sunny in Oslo"},
		{"outside the filter", looked, &adapter.Request{Tool: "hidden", CallID: "h", Integration: "myfw"}, "Rome", notFound("hidden")},
		{"removed", looked, &adapter.Request{Tool: "gone", CallID: "g", Integration: "myfw"}, "Rome", notFound("gone")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.c.Call(ctx, tt.req, tt.input)
			if err != nil || got != tt.want {
				t.Errorf("Call = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if deadline < 59*time.Minute {
		t.Errorf("the looked-up call ran with %v left, want the caller's hour", deadline)
	}
	if want := "[start {\"city\":\"Oslo\"} end sunny in Oslo start Rome error not_found start Rome error not_found]"; fmt.Sprint(ev.got) != want {
		t.Errorf("observer told %v,\nwant %s", ev.got, want)
	}

	// Input that does not parse is args_invalid, read by the model.
	got, err := looked.Call(ctx, &adapter.Request{Tool: "weather", CallID: "bad", Integration: "myfw"}, "{broken")
	if err != nil || !strings.Contains(got, `"kind":"args_invalid"`) {
		t.Errorf("Call(broken input) = %q, %v; want an args_invalid payload", got, err)
	}

	// A fault is the error.
	fault := adapter.MustTool("fault", "", func(context.Context, in) (string, error) {
		return "", &adapter.Error{Kind: adapter.KindConnection, Message: "the upstream is gone"}
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})
	if got, err := direct.Call(ctx, &adapter.Request{Spec: fault}, "Paris"); adapter.KindOf(err) != adapter.KindConnection || got != "" {
		t.Errorf("Call(fault) = %q, %v; want the connection error", got, err)
	}

	if err := exec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var unknown []string
	for _, r := range led.Records() {
		if r.Outcome == string(adapter.KindNotFound) {
			unknown = append(unknown, r.CallID+":"+r.Tool)
		}
	}
	if fmt.Sprint(unknown) != "[h:hidden g:gone]" {
		t.Errorf("not_found records %v, want one each for hidden and gone", unknown)
	}
}
