package approval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Standing is an [Port] that answers from standing decisions an
// approver took — "always approve this tool for this caller", "always deny
// it" — and asks Port about every other call. A standing decision covers
// one tool and one caller (the verified subject; "" is the unauthenticated
// caller), never every caller at once. Allowed decides which tools may
// have standing decisions at all, so that an approval console offers
// "always" only where the policy permits it. It is safe for concurrent use.
type Standing struct {
	// Port decides the calls no standing decision covers. Required.
	Port Port
	// Allowed reports whether standing decisions may be taken for a tool.
	// Nil allows none.
	Allowed func(tool string) bool

	mu    sync.RWMutex
	rules map[standingKey]StandingRule
}

type standingKey struct{ tool, subject string }

// StandingRule is one standing decision.
type StandingRule struct {
	Tool    string
	Subject string
	// Verdict is VerdictApproved or VerdictDenied.
	Verdict Verdict
	// Reason is shown to the model with a standing denial.
	Reason   string
	Approver string
	Created  time.Time
}

// ErrStandingNotAllowed is returned by [Standing.Set] for a tool whose
// policy does not allow standing decisions.
var ErrStandingNotAllowed = errors.New("adapter: standing decisions are not allowed for this tool")

// Allows reports whether standing decisions may be taken for tool.
func (s *Standing) Allows(tool string) bool {
	return s.Allowed != nil && s.Allowed(tool)
}

// Set records a standing decision, replacing any for the same tool and
// subject.
func (s *Standing) Set(r StandingRule) error {
	if !s.Allows(r.Tool) {
		return fmt.Errorf("%w: %q", ErrStandingNotAllowed, r.Tool)
	}
	if r.Verdict != VerdictApproved && r.Verdict != VerdictDenied {
		return fmt.Errorf("adapter: a standing decision must approve or deny, not %v", r.Verdict)
	}
	if r.Created.IsZero() {
		r.Created = time.Now()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rules == nil {
		s.rules = map[standingKey]StandingRule{}
	}
	s.rules[standingKey{r.Tool, r.Subject}] = r
	return nil
}

// Revoke removes the standing decision for tool and subject, reporting
// whether there was one.
func (s *Standing) Revoke(tool, subject string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := standingKey{tool, subject}
	_, ok := s.rules[k]
	delete(s.rules, k)
	return ok
}

// Rules returns the standing decisions, ordered by tool and subject.
func (s *Standing) Rules() []StandingRule {
	s.mu.RLock()
	out := make([]StandingRule, 0, len(s.rules))
	for _, r := range s.rules {
		out = append(out, r)
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b StandingRule) int {
		if c := strings.Compare(a.Tool, b.Tool); c != 0 {
			return c
		}
		return strings.Compare(a.Subject, b.Subject)
	})
	return out
}

// Decide implements [Port].
func (s *Standing) Decide(ctx context.Context, req *Request) (Decision, error) {
	s.mu.RLock()
	r, ok := s.rules[standingKey{req.Tool, req.Subject}]
	s.mu.RUnlock()
	// A rule outlives a policy change only until the next call.
	if ok && s.Allows(req.Tool) {
		return Decision{Verdict: r.Verdict, Reason: r.Reason, Approver: r.Approver}, nil
	}
	if s.Port == nil {
		return Decision{}, errors.New("adapter: Standing.Port is nil")
	}
	return s.Port.Decide(ctx, req)
}
