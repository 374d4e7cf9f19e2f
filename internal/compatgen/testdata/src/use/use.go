// Package use is a user of the old names.
package use

import (
	"context"
	"errors"
	"os"

	"example.com/fix/old"
)

// Use calls every old name. Total is instantiated explicitly: go 1.26's
// inliner does not inline a generic call whose type arguments are inferred.
func Use(ctx context.Context, err error) (int, bool) {
	var s *old.OldSet[string, int]
	s, _ = old.OpenSet(ctx, os.Stdout, nil, "a", "b")
	_ = s
	old.Reset(1, "x")
	_ = old.Discard(1, "y")
	_ = old.Legacy{N: 2}
	// Not inside the call of Total: go 1.26's go fix reports nested fixes
	// applied but writes none of the file's fixes.
	n := old.MaxOpen
	return old.Total[int]([]int{1, 2, n}), errors.Is(err, old.ErrGone)
}
