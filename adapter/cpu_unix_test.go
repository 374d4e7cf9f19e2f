//go:build unix

package adapter_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) the process used: on a
// machine shared with other work, CPU per call is the figure load does not
// inflate the way it inflates wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
