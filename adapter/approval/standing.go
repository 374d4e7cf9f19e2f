package approval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
	// Store keeps the decisions where other replicas and later starts
	// see them: Set and Revoke write through it, Sync reloads from it.
	// Nil keeps them in memory only, for this Standing alone.
	Store StandingStore

	mu    sync.RWMutex
	rules map[standingKey]StandingRule
	// gen counts the changes made through Put and Delete, so that a Sync
	// that read the Store before a change cannot undo it.
	gen uint64
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
	// Ticket is the ticket the decision was taken on, if any.
	Ticket string
}

// ErrStandingNotAllowed is returned by [Standing.Set] for a tool whose
// policy does not allow standing decisions.
var ErrStandingNotAllowed = errors.New("approval: standing decisions are not allowed for this tool")

// Allows reports whether standing decisions may be taken for tool.
func (s *Standing) Allows(tool string) bool {
	return s.Allowed != nil && s.Allowed(tool)
}

// Put records a standing decision, replacing any for the same tool and
// subject. With a Store it writes there first: on a Store error the
// decision is not taken, here or there.
func (s *Standing) Put(ctx context.Context, r StandingRule) error {
	if !s.Allows(r.Tool) {
		return fmt.Errorf("%w: %q", ErrStandingNotAllowed, r.Tool)
	}
	if r.Verdict != VerdictApproved && r.Verdict != VerdictDenied {
		return fmt.Errorf("approval: a standing decision must approve or deny, not %v", r.Verdict)
	}
	if r.Created.IsZero() {
		r.Created = time.Now()
	}
	if s.Store != nil {
		if err := s.Store.Put(ctx, r); err != nil {
			return fmt.Errorf("approval: storing a standing decision: %w", err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rules == nil {
		s.rules = map[standingKey]StandingRule{}
	}
	s.rules[standingKey{r.Tool, r.Subject}] = r
	s.gen++
	return nil
}

// Delete removes the standing decision for tool and subject, reporting
// whether there was one (here, or with a Store, only there). With a
// Store it deletes there first: on a Store error the decision stays in
// force, here and there, and Delete returns the error, so that no
// decision is reported revoked while a replica still applies it.
// Revoking is allowed whatever the policy now says of taking decisions.
func (s *Standing) Delete(ctx context.Context, tool, subject string) (bool, error) {
	var stored bool
	if s.Store != nil {
		var err error
		if stored, err = s.Store.Delete(ctx, tool, subject); err != nil {
			return false, fmt.Errorf("approval: revoking a standing decision: %w", err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := standingKey{tool, subject}
	_, ok := s.rules[k]
	delete(s.rules, k)
	s.gen++
	return ok || stored, nil
}

// Set records a standing decision, as [Standing.Put] with a background
// context.
//
// Deprecated: use [Standing.Put], which bounds the Store's write by a
// context.
func (s *Standing) Set(r StandingRule) error { return s.Put(context.Background(), r) }

// Revoke removes the standing decision for tool and subject, as
// [Standing.Delete] with a background context, reporting false when the
// Store failed (the error is logged with [slog.Default]; the decision
// stays in force).
//
// Deprecated: use [Standing.Delete], which bounds the Store's write by a
// context and returns its error.
func (s *Standing) Revoke(tool, subject string) bool {
	ok, err := s.Delete(context.Background(), tool, subject)
	if err != nil {
		slog.Default().Error("approval: revoking a standing decision", "tool", tool, "subject", subject, "err", err)
	}
	return ok
}

// Sync replaces the decisions of this Standing with those of its Store,
// to pick up what other replicas decided. Without a Store it does
// nothing. On an error the decisions are left as they were. A Put or
// Delete made while Sync reads the Store wins: Sync then keeps the
// decisions as they are and leaves the rest to the next Sync.
func (s *Standing) Sync(ctx context.Context) error {
	if s.Store == nil {
		return nil
	}
	s.mu.RLock()
	gen := s.gen
	s.mu.RUnlock()
	rules := map[standingKey]StandingRule{}
	for r, err := range s.Store.All(ctx) {
		if err != nil {
			return err
		}
		rules[standingKey{r.Tool, r.Subject}] = r
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == gen {
		s.rules = rules
	}
	return nil
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
		return Decision{}, errors.New("approval: Standing.Port is nil")
	}
	return s.Port.Decide(ctx, req)
}
