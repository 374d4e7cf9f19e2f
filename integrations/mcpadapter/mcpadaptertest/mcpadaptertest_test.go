package mcpadaptertest_test

import (
	"testing"

	"github.com/agentadapter/agentadapter/adapter/adaptertest"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/mcpadaptertest"
)

func TestMemoryPinStore(t *testing.T) {
	mcpadaptertest.TestPinStore(t, func(t *testing.T) adaptertest.Opener[mcpadapter.PinStore] {
		s := mcpadapter.NewMemoryPinStore(nil)
		return func() mcpadapter.PinStore { return s }
	})
}
