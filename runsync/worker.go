package runsync

import (
	"runtime"
	"sync"
	"time"
)

// Run hands functions to long-lived worker goroutines instead of starting
// one per call: a fresh goroutine costs a few allocations and, for any
// function deeper than a few frames, growing its stack again. A worker
// whose caller gives up on it (the function overran its deadline) is never
// reused: it finishes the function, is counted by Abandoned meanwhile, and
// exits; the pool starts another when it needs one. So the "never wait past
// the deadline" guarantee is the same as with a goroutine per call.
//
// Idle workers exit after workerIdle (up to twice that), so that a program
// (or a goroutine leak checker) that stops calling sees them go away.
const workerIdle = 2 * time.Second

// A job is what a worker runs: a *runCall. run reports whether the caller
// gave up on it.
type job interface{ run() (abandoned bool) }

type worker struct {
	jobs chan job  // capacity 1: the next job, or nil to exit
	done chan bool // capacity 1: after each job, whether the worker is reusable
	idle bool      // on the idle list; guarded by pool.mu
}

var pool struct {
	mu   sync.Mutex
	idle []*worker // a stack: the most recently used worker has the warmest stack
}

// maxIdle bounds the idle workers kept; more exit at once. A worker is
// busy for as long as its call lasts, an RPC's round trip included, so
// the bound is the calls a busy server has in flight rather than its
// CPUs: a smaller one would retire most workers of a burst, and their
// successors would grow their stacks again. An idle worker's stack shrinks
// at each GC (it uses little of it), and the worker exits after
// workerIdle.
func maxIdle() int { return max(256, 4*runtime.GOMAXPROCS(0)) }

// getWorker returns an idle worker, or starts one.
func getWorker() *worker {
	pool.mu.Lock()
	if n := len(pool.idle); n > 0 {
		w := pool.idle[n-1]
		pool.idle[n-1] = nil
		pool.idle = pool.idle[:n-1]
		w.idle = false
		pool.mu.Unlock()
		return w
	}
	pool.mu.Unlock()
	w := &worker{jobs: make(chan job, 1), done: make(chan bool, 1)}
	go w.loop()
	return w
}

// putWorker returns a worker whose job is done to the idle list.
func putWorker(w *worker) {
	pool.mu.Lock()
	if len(pool.idle) < maxIdle() {
		w.idle = true
		pool.idle = append(pool.idle, w)
		pool.mu.Unlock()
		return
	}
	pool.mu.Unlock()
	w.jobs <- nil
}

func (w *worker) loop() {
	// The idle timer is not reset per job (that is a timer-heap update on
	// every call): a worker used since it was armed re-arms it, so an idle
	// worker exits between one and two workerIdle after its last job.
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	used := false
	for {
		select {
		case j := <-w.jobs:
			if j == nil || !w.do(j) {
				return
			}
			used = true
		case <-t.C:
			if used {
				used = false
				t.Reset(workerIdle)
				continue
			}
			pool.mu.Lock()
			if w.idle {
				i := indexOf(pool.idle, w)
				pool.idle = append(pool.idle[:i], pool.idle[i+1:]...)
				pool.mu.Unlock()
				return
			}
			// Taken off the idle list just now: its job is on the way.
			pool.mu.Unlock()
			t.Reset(workerIdle)
		}
	}
}

func indexOf(ws []*worker, w *worker) int {
	for i, x := range ws {
		if x == w {
			return i
		}
	}
	panic("runsync: idle worker not on the idle list")
}

// do runs one job and reports whether the worker may take another: not
// when its caller gave up on it, nor when the function called
// runtime.Goexit (which ends this goroutine once the deferred call has
// reported it).
func (w *worker) do(j job) (reusable bool) {
	exited := true
	defer func() {
		if exited {
			w.done <- false
		}
	}()
	abandoned := j.run()
	exited = false
	w.done <- !abandoned
	return !abandoned
}
