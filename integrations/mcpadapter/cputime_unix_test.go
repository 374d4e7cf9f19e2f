//go:build unix

package mcpadapter_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) the process has used: on a
// loaded machine, the cost of a call that wall time cannot show.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
