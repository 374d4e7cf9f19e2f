//go:build !unix

package main

import "os"

// dumpSignal: no SIGUSR1 here; AGENTADAPTER_GOROUTINES does nothing.
var dumpSignal os.Signal
