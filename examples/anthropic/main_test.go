package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestRun runs the command offline and checks what it shows: the failure
// read as a payload, the conversation stopped on the held call and resumed
// once approved, the deletion run once, and one run in the ledger.
func TestRun(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		`[anthropic] get_weather {"city":"Atlantis"} -> tool_error: no weather station in Atlantis`,
		`[anthropic] delete_report {"name":"draft-anthropic.txt"} -> approval_pending`,
		`approval: delete_report {"name":"draft-anthropic.txt"} (ticket tkt_`,
		`answer: I read: get_weather={"city":"Paris","temp_c":21.5}; get_weather=Error: {"error":{"kind":"tool_error","message":"no weather station in Atlantis","tool":"get_weather"}}; delete_report=deleted draft-anthropic.txt`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if n := strings.Count(got, "-> deleted draft-anthropic.txt"); n != 1 {
		t.Errorf("the deletion ran %d times, want once", n)
	}
	recs := regexp.MustCompile(`(?m)^  anthropic\s+(\w+)\s+(\w+)\s+run=(\S+)$`).FindAllStringSubmatch(got, -1)
	var outcomes []string
	for _, r := range recs {
		outcomes = append(outcomes, r[1]+":"+r[2])
		if r[3] != recs[0][3] {
			t.Errorf("record %v in run %s, want every record in run %s (one conversation, one run)", r[1:3], r[3], recs[0][3])
		}
	}
	if want := "get_weather:ok get_weather:tool_error delete_report:approval_pending delete_report:ok"; strings.Join(outcomes, " ") != want {
		t.Errorf("ledger %q, want %q", strings.Join(outcomes, " "), want)
	}
	if t.Failed() {
		t.Logf("--- output ---\n%s", got)
	}
}
