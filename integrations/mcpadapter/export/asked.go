package export

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
)

// The approval questions put to a session and not answered yet are
// counted, so that one client flooding the server with calls it never
// answers is asked a bounded number of questions (past them its calls answer
// with their ticket) without stopping the others from being asked. What an
// answer is checked against travels in the requestState (requeststate.go),
// not here: on the stateless endpoint each request is a session of its own,
// so there the questions are the caller's (its subject, else its client
// address: see taskOwner) and last until they expire or are answered, not
// until the request ends.
const (
	// askedTTL bounds an unanswered question whose call has no deadline
	// (a client on 2026-07-28 may never retry).
	askedTTL = 10 * time.Minute
	// maxAskedPerSession caps one session's (or stateless caller's)
	// unanswered questions; past it that session's calls answer with their
	// ticket instead.
	maxAskedPerSession = 32
	// askedSweep spaces the passes dropping the expired questions of
	// stateless callers, whose entries no session end removes.
	askedSweep = time.Minute
)

// askedTicket records an approval question until the client answers it or
// it expires with its call.
type askedTicket struct {
	tool    string
	expires time.Time
}

// statelessAsker keys the questions put to a caller of the stateless
// endpoint (taskOwner's key): its requests' temporary sessions end with
// each request, the caller does not.
type statelessAsker string

// askerOf is the key of the session that asks: its id (with the verified
// subject, when there is one), the caller on the stateless endpoint, or
// the session itself for transports without ids.
func (s *Server) askerOf(ctx context.Context, req *mcp.CallToolRequest) any {
	if ephemeralSession(req) {
		return statelessAsker(s.taskOwner(ctx, req))
	}
	sub := ""
	if id := adapter.IdentityFromContext(ctx); id != nil {
		sub = id.Subject
	}
	if req.Session == nil {
		return "user:" + sub
	}
	if sid := req.Session.ID(); sid != "" {
		return "session:" + sid + "/user:" + sub
	}
	if sub != "" {
		return "user:" + sub
	}
	return req.Session
}

func (s *Server) rememberAsked(ctx context.Context, req *mcp.CallToolRequest, ticket, tool string) bool {
	now := time.Now()
	expires := now.Add(askedTTL)
	if dl, ok := ctx.Deadline(); ok && dl.Before(expires) {
		expires = dl
	}
	key := s.askerOf(ctx, req)
	s.askMu.Lock()
	defer s.askMu.Unlock()
	_, stateless := key.(statelessAsker)
	if stateless && now.Sub(s.askSwept) >= askedSweep {
		s.askSwept = now
		s.sweepStateless(now)
	}
	m := s.asked[key]
	if m == nil {
		m = map[string]askedTicket{}
		s.asked[key] = m
		if ss := req.Session; ss != nil && !stateless {
			// Forget the session's questions when it ends.
			go func() {
				ss.Wait()
				s.askMu.Lock()
				delete(s.asked, key)
				s.askMu.Unlock()
			}()
		}
	}
	if _, again := m[ticket]; !again && len(m) >= maxAskedPerSession {
		for id, a := range m {
			if now.After(a.expires) {
				delete(m, id)
			}
		}
		if len(m) >= maxAskedPerSession {
			return false // this session is flooding: its call answers with its ticket
		}
	}
	m[ticket] = askedTicket{tool: tool, expires: expires}
	return true
}

// sweepStateless drops the expired questions of stateless callers, and
// the callers left with none.
func (s *Server) sweepStateless(now time.Time) {
	for key, m := range s.asked {
		if _, ok := key.(statelessAsker); !ok {
			continue
		}
		for id, a := range m {
			if now.After(a.expires) {
				delete(m, id)
			}
		}
		if len(m) == 0 {
			delete(s.asked, key)
		}
	}
}

// forgetAsked forgets ticket, answered by this session.
func (s *Server) forgetAsked(ctx context.Context, req *mcp.CallToolRequest, ticket string) {
	key := s.askerOf(ctx, req)
	s.askMu.Lock()
	defer s.askMu.Unlock()
	if m := s.asked[key]; m != nil {
		delete(m, ticket)
		if _, stateless := key.(statelessAsker); stateless && len(m) == 0 {
			delete(s.asked, key)
		}
	}
}
