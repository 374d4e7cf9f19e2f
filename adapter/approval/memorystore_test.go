package approval_test

import (
	"testing"

	"github.com/agentadapter/agentadapter/adapter/adaptertest"
	"github.com/agentadapter/agentadapter/adapter/approval"
)

func TestMemoryTicketStore(t *testing.T) {
	adaptertest.TestTicketStore(t, func(t *testing.T) approval.Store { return approval.NewMemoryStore() })
}

func TestMemoryTicketReplicas(t *testing.T) {
	adaptertest.TestTicketReplicas(t, func(t *testing.T) adaptertest.Opener[approval.Store] {
		s := approval.NewMemoryStore()
		return func() approval.Store { return s }
	})
}

func TestMemoryTicketEditor(t *testing.T) {
	adaptertest.TestTicketEditor(t, func(t *testing.T) adaptertest.Opener[approval.Store] {
		s := approval.NewMemoryStore()
		return func() approval.Store { return s }
	})
}
