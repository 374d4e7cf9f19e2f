package kit

import (
	"errors"
	"fmt"

	"github.com/agentadapter/agentadapter/adapter"
)

// CheckNames reports, as one joined error, the specs whose names clash:
// named like an earlier spec, or like a tool that taken reports (one the
// framework already holds, and would run instead). Each error wraps clash,
// the integration's sentinel. A nil taken reports only duplicates; nil
// specs are skipped, for the constructor to report.
func CheckNames(specs []*adapter.Spec, taken func(name string) bool, clash error) error {
	seen := make(map[string]bool, len(specs))
	var errs []error
	for _, s := range specs {
		if s == nil {
			continue
		}
		if seen[s.Name] {
			errs = append(errs, fmt.Errorf("%w: %q appears twice", clash, s.Name))
		}
		seen[s.Name] = true
		if taken != nil && taken(s.Name) {
			errs = append(errs, fmt.Errorf("%w: %q (spec from %s)", clash, s.Name, s.Source))
		}
	}
	return errors.Join(errs...)
}
