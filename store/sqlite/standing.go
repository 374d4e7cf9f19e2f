package sqlitestore

import (
	"context"
	"iter"

	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/store/internal/sqlkv"
)

// Standing is the table of standing decisions (an
// [approval.StandingStore], for [approval.Standing.Store]), shared by
// every Store open on the database and apart from the ledger: the
// retention sweep never touches it. Migration 008 seeds it from the
// ledger's "standing" records, so decisions taken before it still hold.
type Standing struct {
	t sqlkv.Standing
}

// Standing returns the store's standing decisions.
func (s *Store) Standing() *Standing { return &Standing{t: s.kv.Standing()} }

// Put implements [approval.StandingStore]. It refuses a verdict other
// than approved or denied.
func (t *Standing) Put(ctx context.Context, r approval.StandingRule) error {
	return t.t.Put(ctx, r)
}

// Delete implements [approval.StandingStore].
func (t *Standing) Delete(ctx context.Context, tool, subject string) (bool, error) {
	return t.t.Delete(ctx, tool, subject)
}

// All implements [approval.StandingStore].
func (t *Standing) All(ctx context.Context) iter.Seq2[approval.StandingRule, error] {
	return t.t.All(ctx)
}
