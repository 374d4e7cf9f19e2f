//go:build !unix

package storetest

import "time"

// cpuTime is 0 where getrusage is missing: the benchmarks then leave out
// their per-CPU-second figures.
func cpuTime() time.Duration { return 0 }
