// Package newpkg is where the names live now.
package newpkg

import (
	"context"
	"errors"
	stdio "io"
)

// Set is a generic type.
type Set[K comparable, V any] struct{ m map[K]V }

// Number is a constraint.
type Number interface{ ~int | ~float64 }

// Limit is a constant.
const Limit = 3

// ErrGone is a sentinel error.
var ErrGone = errors.New("gone")

// Options configures Open; the zero value is the default.
type Options struct{ Size int }

// Open has a context, a pointer to the package's own type, a qualified
// type from a renamed import and a variadic parameter.
func Open(ctx context.Context, w stdio.Writer, opts *Options, tags ...string) (*Set[string, int], error) {
	return &Set[string, int]{}, nil
}

// Sum is generic.
func Sum[T Number](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

// Reset has unnamed parameters and no result.
func Reset(int, string) {}

// Drop has a blank parameter.
func Drop(_ int, name string) string { return name }
