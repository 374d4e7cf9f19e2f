package kit_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

func TestApplyResume(t *testing.T) {
	for _, tt := range []struct {
		args, wantArgs, ticket, callID string
	}{
		{`{"a":1}`, `{"a":1}`, "", "c1"},
		{`{"$agentadapter_resume":{"ticket":"tkt_1","ref":"r7","args":{"a":2}}}`, `{"a":2}`, "tkt_1", "r7"},
		{`{"$agentadapter_resume":{"ticket":"","args":{}}}`, `{"$agentadapter_resume":{"ticket":"","args":{}}}`, "", "c1"},
	} {
		req := &adapter.Request{Args: json.RawMessage(tt.args), CallID: "c1"}
		kit.ApplyResume(req)
		if string(req.Args) != tt.wantArgs || req.Ticket != tt.ticket || req.CallID != tt.callID {
			t.Errorf("ApplyResume(%s) = args %s, ticket %q, call id %q; want %s, %q, %q", tt.args, req.Args, req.Ticket, req.CallID, tt.wantArgs, tt.ticket, tt.callID)
		}
	}
}

func TestCallParts(t *testing.T) {
	ro := &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}
	type none struct{}
	picture := adapter.MustRawTool("picture", "", &jsonschema.Schema{Type: "object"}, func(context.Context, json.RawMessage) (*adapter.Result, error) {
		return &adapter.Result{Content: []adapter.Content{&adapter.TextContent{Text: "a cat"}, &adapter.ImageContent{MIMEType: "image/png", Data: []byte("png")}}}, nil
	}, ro)
	fail := adapter.MustTool("fail", "", func(context.Context, none) (string, error) { return "", errors.New("the disk is full") }, ro)
	fault := adapter.MustTool("fault", "", func(context.Context, none) (string, error) {
		return "", &adapter.Error{Kind: adapter.KindConnection, Message: "the upstream is gone"}
	}, ro)
	held := adapter.MustTool("held", "", func(context.Context, none) (string, error) { return "ran", nil }, nil)
	reg := registry.New()
	reg.MustRegister(picture, fail, fault, held)
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	holding := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: &adapter.Deferred{}}})
	defer holding.Close()
	ctx := context.Background()
	call := func(s *adapter.Spec) ([]adapter.Part, *adapter.Error, error) {
		e := exec
		if s == held {
			e = holding
		}
		return kit.CallParts(ctx, e, &adapter.Request{Spec: s, CallID: "c1", Integration: "myfw"}, nil)
	}

	parts, pending, err := call(picture)
	if err != nil || pending != nil || len(parts) != 2 || parts[0].Text != "a cat" || parts[1].Media == nil || parts[1].Media.MIMEType != "image/png" {
		t.Errorf("CallParts(picture) = %+v, %v, %v; want its text and image parts", parts, pending, err)
	}
	parts, pending, err = call(fail)
	want, _ := adapter.ModelPayload(&adapter.Error{Kind: adapter.KindToolError, Tool: "fail", CallID: "c1", Message: "the disk is full"})
	if err != nil || pending != nil || len(parts) != 1 || parts[0].Text != want {
		t.Errorf("CallParts(fail) = %+v, %v, %v; want the payload %s as one part", parts, pending, err, want)
	}
	parts, pending, err = call(held)
	if err != nil || parts != nil || pending == nil || pending.Ticket == "" {
		t.Errorf("CallParts(held) = %+v, %v, %v; want the call pending with a ticket", parts, pending, err)
	}
	parts, pending, err = call(fault)
	if adapter.KindOf(err) != adapter.KindConnection || parts != nil || pending != nil {
		t.Errorf("CallParts(fault) = %+v, %v, %v; want the connection fault as an error", parts, pending, err)
	}
}
