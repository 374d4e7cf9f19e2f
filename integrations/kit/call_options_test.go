package kit_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

type approveAll struct{}

func (approveAll) Decide(context.Context, *adapter.ApprovalRequest) (adapter.Decision, error) {
	return adapter.Decision{}, nil
}

func TestCallOptionsApply(t *testing.T) {
	def, other := adapter.NewExecutor(nil, nil), adapter.NewExecutor(nil, nil)
	defer def.Close()
	defer other.Close()
	for _, tt := range []struct {
		name     string
		o        *kit.CallOptions
		timeout  time.Duration
		wantExec *adapter.Executor
		wantTime time.Duration
		approval bool
	}{
		{"nil options", nil, 0, def, 0, false},
		{"tool default timeout", &kit.CallOptions{}, time.Second, def, time.Second, false},
		{"call timeout overrides", &kit.CallOptions{Timeout: time.Minute}, time.Second, def, time.Minute, false},
		{"executor and approval", &kit.CallOptions{Executor: other, Approval: approveAll{}}, 0, other, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := &adapter.Request{Timeout: time.Hour}
			if got := tt.o.Apply(req, def, tt.timeout); got != tt.wantExec {
				t.Errorf("executor = %p, want %p", got, tt.wantExec)
			}
			if req.Timeout != tt.wantTime {
				t.Errorf("Timeout = %v, want %v", req.Timeout, tt.wantTime)
			}
			if (req.Approval != nil) != tt.approval {
				t.Errorf("Approval = %v, want set %v", req.Approval, tt.approval)
			}
		})
	}
}
