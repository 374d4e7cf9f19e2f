package export

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/reqstate"
)

// The requestState of a question put to the client is minted and
// verified by internal/reqstate; what it binds is a questionState.

type (
	questionState = reqstate.State
	stateSealer   = reqstate.Sealer
)

const (
	// promptDomain is the MAC domain of a prompt's relayed question.
	promptDomain = reqstate.PromptDomain
	// stateTTL bounds how long a question may be answered.
	stateTTL = askedTTL
)

// errStateMalformed refuses a requestState that is not one of ours.
var errStateMalformed = reqstate.ErrMalformed

// newState returns the state of a question about a call of tool with
// arguments of hash by the caller of ctx. A caller without an identity
// is anonymous, as bindCaller reads it.
func (s *Server) newState(ctx context.Context, tool, hash string) *questionState {
	st := &questionState{Tool: tool, Args: hash, Anon: true, Ses: adapter.SessionFromContext(ctx), Srv: s.stateServer(), Exp: time.Now().Add(stateTTL).Unix()}
	if id := adapter.IdentityFromContext(ctx); id != nil {
		st.Sub, st.Anon = id.Subject, id.Anonymous
	}
	if c, ok := ctx.Value(continueKey{}).(*continued); ok && c.tool == tool && c.round < maxContinueRounds {
		// The call ran under c's approval and its tool asks: the answer
		// continues it (a question about approval clears this).
		st.Cont, st.CRnd, st.N = c.ticket, c.round+1, newNonce()
	}
	return st
}

// newNonce returns 96 random bits, hex.
func newNonce() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%x", b)
}

// stateServer is the name a requestState binds its exporter by.
func (s *Server) stateServer() string {
	if s.opts.Name == "" {
		return DefaultServerName
	}
	return s.opts.Name
}
