package mcpadapter

import (
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/sampling"
)

// Sample returns s, a framework-neutral [kit.Sampler] (einoadapter,
// genkitadapter and langchaingoadapter each make one from their model),
// as the Sampler of [ManagerOptions]. Content other than text, images and
// audio is an error the server receives. A nil s panics.
func Sample(s kit.Sampler) Sampler {
	if s == nil {
		panic("mcpadapter: Sample with a nil kit.Sampler")
	}
	return sampling.Adapt(s)
}
