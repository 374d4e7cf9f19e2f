package mcpadaptertest_test

import (
	"testing"

	"github.com/agentadapter/agentadapter/adapter/adaptertest"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/mcpadaptertest"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
)

func TestMemoryPinStore(t *testing.T) {
	mcpadaptertest.TestPinStore(t, func(t *testing.T) adaptertest.Opener[pin.Store] {
		s := pin.NewMemoryStore(nil)
		return func() pin.Store { return s }
	})
}
