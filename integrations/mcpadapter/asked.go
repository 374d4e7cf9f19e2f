package mcpadapter

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
// not here: on the stateless endpoint each request is a session of its own.
const (
	// askedTTL bounds an unanswered question whose call has no deadline
	// (a client on 2026-07-28 may never retry).
	askedTTL = 10 * time.Minute
	// maxAskedPerSession caps one session's unanswered questions; past it
	// that session's calls answer with their ticket instead.
	maxAskedPerSession = 32
)

// askedTicket records an approval question until the client answers it or
// it expires with its call.
type askedTicket struct {
	tool    string
	expires time.Time
}

// askerOf is the key of the session that asks: its id (with the verified
// subject, when there is one), or the session itself for transports
// without ids.
func askerOf(ctx context.Context, req *mcp.CallToolRequest) any {
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

func (s *Exporter) rememberAsked(ctx context.Context, req *mcp.CallToolRequest, ticket, tool string) bool {
	now := time.Now()
	expires := now.Add(askedTTL)
	if dl, ok := ctx.Deadline(); ok && dl.Before(expires) {
		expires = dl
	}
	key := askerOf(ctx, req)
	s.askMu.Lock()
	defer s.askMu.Unlock()
	m := s.asked[key]
	if m == nil {
		m = map[string]askedTicket{}
		s.asked[key] = m
		if ss := req.Session; ss != nil {
			// Forget the session's questions when it ends.
			go func() {
				ss.Wait()
				s.askMu.Lock()
				delete(s.asked, key)
				s.askMu.Unlock()
			}()
		}
	}
	if len(m) >= maxAskedPerSession {
		for id, a := range m {
			if now.After(a.expires) {
				delete(m, id)
			}
		}
	}
	if len(m) >= maxAskedPerSession {
		return false // this session is flooding: its call answers with its ticket
	}
	m[ticket] = askedTicket{tool: tool, expires: expires}
	return true
}

// forgetAsked forgets ticket, answered by this session.
func (s *Exporter) forgetAsked(ctx context.Context, req *mcp.CallToolRequest, ticket string) {
	key := askerOf(ctx, req)
	s.askMu.Lock()
	defer s.askMu.Unlock()
	delete(s.asked[key], ticket)
}
