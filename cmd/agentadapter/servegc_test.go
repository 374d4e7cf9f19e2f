package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestServeGC checks serve's GC target: GOGC=200 when the environment sets
// none, the environment's own value (which the runtime applied) otherwise.
func TestServeGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOGC", "50")
	serveGC()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("with GOGC set, serve changed the GC percent to %d", p)
	}
	os.Unsetenv("GOGC")
	serveGC()
	if p := debug.SetGCPercent(100); p != serveGCPercent {
		t.Errorf("GC percent %d without GOGC, want %d", p, serveGCPercent)
	}
}
