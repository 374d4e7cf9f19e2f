package caller_test

import (
	"context"
	"testing"

	"github.com/agentadapter/agentadapter/adapter/caller"
)

func TestIdentityAndSession(t *testing.T) {
	ctx := context.Background()
	if id := caller.IdentityFrom(ctx); id != nil {
		t.Errorf("IdentityFrom(empty context) = %+v, want nil", id)
	}
	if s := caller.SessionFrom(ctx); s != "" {
		t.Errorf("SessionFrom(empty context) = %q, want \"\"", s)
	}
	alice := &caller.Identity{Subject: "alice", Scopes: []string{"read"}}
	ctx = caller.WithSession(caller.WithIdentity(ctx, alice), "conn-42")
	if id := caller.IdentityFrom(ctx); id != alice {
		t.Errorf("IdentityFrom = %+v, want the identity set (%+v)", id, alice)
	}
	if s := caller.SessionFrom(ctx); s != "conn-42" {
		t.Errorf("SessionFrom = %q, want \"conn-42\"", s)
	}
	// The two keys are distinct: a session does not read as an identity.
	if id := caller.IdentityFrom(caller.WithSession(context.Background(), "s")); id != nil {
		t.Errorf("IdentityFrom(session only) = %+v, want nil", id)
	}
}
