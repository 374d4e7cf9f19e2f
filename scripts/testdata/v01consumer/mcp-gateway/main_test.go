package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestSelfCheck runs the gateway over its two demo servers: both are
// imported with prefixed names, the read-only call runs, the destructive one
// waits for approval and runs once approved, and all three calls reach the
// ledger.
func TestSelfCheck(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out, nil, nil, "127.0.0.1:0", false, ""); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"tool files_delete",
		"tool weather_forecast",
		`call weather_forecast map[city:Lyon] -> isError=false text={"city":"Lyon","high_c":24,"skies":"clear"}`,
		`call files_delete map[path:/tmp/old.log] -> isError=true text={"error":{"kind":"approval_pending"`,
		`call files_delete map[path:/tmp/old.log] -> isError=false text={"deleted":"/tmp/old.log"}`,
		"ledger: 3 records",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q\n--- output ---\n%s", want, got)
		}
	}
}
