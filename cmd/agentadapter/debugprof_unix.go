//go:build unix

package main

import (
	"os"
	"syscall"
)

// dumpSignal asks for a goroutine dump (AGENTADAPTER_GOROUTINES).
var dumpSignal os.Signal = syscall.SIGUSR1
