package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestQuickstart runs the README's main command and checks what it shows:
// all three frameworks and the OpenAI SDK loop complete, each survives its failing call and gets
// its approval, and the ledger holds every call.
func TestQuickstart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, fw := range []string{"eino", "genkit", "langchaingo", "openai"} {
		for _, want := range []string{
			"== " + fw,
			"[" + fw + `] get_weather {"city":"Atlantis"} -> tool_error: no weather station in Atlantis`,
			"[" + fw + `] convert {"amount":20,"from":"EUR","to":"USD"} -> {"amount":21.6,"currency":"USD"}`,
			"[" + fw + `] delete_report {"name":"draft-` + fw + `.txt"} -> approval_pending`,
			"[" + fw + `] delete_report {"name":"draft-` + fw + `.txt"} -> deleted draft-` + fw + `.txt`,
			`delete_report {"name":"draft-` + fw + `.txt"} (ticket tkt_`,
		} {
			if !strings.Contains(got, want) {
				t.Errorf("output lacks %q", want)
			}
		}
	}
	// The models read the failure as a payload and went on to answer.
	if n := strings.Count(got, `{"error":{"kind":"tool_error","message":"no weather station in Atlantis"`); n != 3 {
		t.Errorf("the eino, genkit and openai models should each quote the tool_error payload; found %d", n)
	}
	if n := strings.Count(got, "  answer: "); n != 4 {
		t.Errorf("want 4 answers, got %d", n)
	}
	want := "summary: 20 calls; by framework eino=5 genkit=5 langchaingo=5 openai=5; by outcome approval_pending=4 ok=12 tool_error=4; 3 cache hits"
	if !strings.Contains(got, want) {
		t.Errorf("ledger summary: want %q", want)
	}
	if t.Failed() {
		t.Logf("--- output ---\n%s", got)
	}
	// Every ledger line names its framework and an outcome.
	lines := regexp.MustCompile(`(?m)^  (eino|genkit|langchaingo|openai)\s+\w+\s+(ok|tool_error|approval_pending)\s`).FindAllString(got, -1)
	if len(lines) != 20 {
		t.Errorf("ledger lines: got %d, want 20", len(lines))
	}
}
