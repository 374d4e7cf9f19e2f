package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"sync/atomic"
)

// Opt-in diagnostics, off unless their variable is set (no network
// endpoint): AGENTADAPTER_CPUPROFILE=FILE writes a CPU profile of the
// whole process to FILE when it exits (go tool pprof FILE);
// AGENTADAPTER_MEMPROFILE=FILE writes the heap profile (with every
// allocation since start: go tool pprof -sample_index=alloc_space FILE) when
// it exits;
// AGENTADAPTER_GOROUTINES=BASE writes every goroutine's stack to BASE.1,
// BASE.2, ... on each SIGUSR1 (Unix only), without stopping the process (the soak
// driver takes one at a hung call).
const (
	envCPUProfile = "AGENTADAPTER_CPUPROFILE"
	envGoroutines = "AGENTADAPTER_GOROUTINES"
	envMemProfile = "AGENTADAPTER_MEMPROFILE"
)

// startDiagnostics starts what the environment asks for; the function it
// returns ends it (writing the CPU profile). Failures go to stderr: a
// diagnostic never keeps the command from running.
func startDiagnostics(stderr io.Writer) (stop func()) {
	var stops []func()
	if p := os.Getenv(envCPUProfile); p != "" {
		f, err := os.Create(p)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "agentadapter: %s: %v\n", envCPUProfile, err)
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if p := os.Getenv(envMemProfile); p != "" {
		stops = append(stops, func() {
			err := writeProfile("allocs", p)
			if err != nil {
				fmt.Fprintf(stderr, "agentadapter: %s: %v\n", envMemProfile, err)
			}
		})
	}
	if base := os.Getenv(envGoroutines); base != "" && dumpSignal != nil {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, dumpSignal)
		done := make(chan struct{})
		ended := make(chan struct{})
		var n atomic.Int64
		go func() {
			defer close(ended)
			for {
				select {
				case <-done:
					return
				case <-ch:
					if err := dumpGoroutines(fmt.Sprintf("%s.%d", base, n.Add(1))); err != nil {
						fmt.Fprintf(stderr, "agentadapter: %s: %v\n", envGoroutines, err)
					}
				}
			}
		}()
		stops = append(stops, func() { signal.Stop(ch); close(done); <-ended })
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}

func dumpGoroutines(path string) error { return writeProfile("goroutine", path) }

// writeProfile writes the named runtime/pprof profile to path (goroutine
// stacks in full, the others in the compressed format pprof reads).
func writeProfile(name, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	debug := 0
	if name == "goroutine" {
		debug = 2
	}
	err = pprof.Lookup(name).WriteTo(f, debug)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
