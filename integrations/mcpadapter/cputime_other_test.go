//go:build !unix

package mcpadapter_test

import "time"

func processCPU() time.Duration { return 0 }
