package kit_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestMessages(t *testing.T) {
	req := &kit.SampleRequest{SystemPrompt: "be brief", Messages: []kit.Message{
		{Role: kit.RoleUser, Content: kit.Part{Kind: kit.PartText, Text: "hi"}},
		{Role: kit.RoleAssistant, Content: kit.Part{Kind: kit.PartImage, MIMEType: "image/png", Data: []byte{1}}},
	}}
	part := func(r kit.Role, p kit.Part) (string, error) {
		return fmt.Sprintf("%s:%s:%s%s", r, p.Kind, p.Text, p.MIMEType), nil
	}
	sys := func(s string) string { return "system:" + s }
	got, err := kit.Messages(req, sys, part)
	if err != nil || fmt.Sprint(got) != "[system:be brief user:text:hi assistant:image:image/png]" {
		t.Errorf("Messages = %q, %v", got, err)
	}
	if got, _ := kit.Messages(req, nil, part); len(got) != 2 {
		t.Errorf("Messages without a system func = %q, want the two messages only", got)
	}

	odd := &kit.SampleRequest{Messages: []kit.Message{req.Messages[0], {Role: kit.RoleUser, Content: kit.Part{Kind: "resource"}}}}
	if _, err := kit.Messages(odd, sys, part); err == nil || err.Error() != `message 1: content "resource" cannot be sent to the model` {
		t.Errorf("Messages(resource part) error = %v", err)
	}
	refuse := errors.New("an assistant image cannot be sent to the model")
	_, err = kit.Messages(req, sys, func(r kit.Role, p kit.Part) (string, error) {
		if p.Kind == kit.PartImage {
			return "", refuse
		}
		return "", nil
	})
	if !errors.Is(err, refuse) || err.Error() != "message 1: "+refuse.Error() {
		t.Errorf("Messages(part error) = %v, want it wrapped with the message index", err)
	}
}

func TestChooseModel(t *testing.T) {
	has := func(n string) bool { return n == "b" || n == "c" }
	for _, tt := range []struct {
		hints []string
		want  string
	}{
		{nil, "default"},
		{[]string{"a"}, "default"},
		{[]string{"a", "c", "b"}, "c"},
	} {
		if got := kit.ChooseModel(&kit.SampleRequest{ModelHints: tt.hints}, has, "default"); got != tt.want {
			t.Errorf("ChooseModel(%v) = %q, want %q", tt.hints, got, tt.want)
		}
	}
}

func TestStopReasonOf(t *testing.T) {
	for in, want := range map[string]kit.StopReason{
		"length": kit.StopMaxTokens, "max_tokens": kit.StopMaxTokens, "MAX_TOKENS": kit.StopMaxTokens,
		"stop": kit.StopEndTurn, "": kit.StopEndTurn, "end_turn": kit.StopEndTurn,
	} {
		if got := kit.StopReasonOf(in); got != want {
			t.Errorf("StopReasonOf(%q) = %q, want %q", in, got, want)
		}
	}
}
