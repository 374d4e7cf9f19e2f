//go:build !unix

package adapter_test

import "time"

// cpuTime is not measured here (see cpu_unix_test.go).
func cpuTime() time.Duration { return 0 }
