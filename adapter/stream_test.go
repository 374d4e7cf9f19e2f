package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

type storyIn struct {
	Words []string `json:"words"`
}

// story yields one text part per word; between words it waits for step,
// so the test can prove each part arrives before the next is produced.
func story(step chan struct{}) func(context.Context, storyIn) iter.Seq2[adapter.Content, error] {
	return func(ctx context.Context, in storyIn) iter.Seq2[adapter.Content, error] {
		return func(yield func(adapter.Content, error) bool) {
			for i, w := range in.Words {
				if i > 0 && step != nil {
					select {
					case <-step:
					case <-ctx.Done():
						yield(nil, ctx.Err())
						return
					}
				}
				if w == "FAIL" {
					yield(nil, errors.New("the story broke"))
					return
				}
				if !yield(&adapter.TextContent{Text: w}, nil) {
					return
				}
			}
		}
	}
}

func TestStreamPartsArriveAsProduced(t *testing.T) {
	step := make(chan struct{})
	spec := adapter.MustStreamTool("story", "tells a story", story(step), nil)
	if !spec.Streaming || spec.OutputSchema != nil {
		t.Fatalf("Streaming=%v OutputSchema=%v", spec.Streaming, spec.OutputSchema)
	}
	ledger := ledger.NewMemory(0)
	exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Ledger: ledger})
	defer exec.Close()
	var got []string
	for c, err := range exec.Stream(context.Background(), &adapter.Request{Spec: spec, Args: json.RawMessage(`{"words":["once ","upon ","a time"]}`)}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c.(*adapter.TextContent).Text)
		if len(got) < 3 {
			step <- struct{}{} // the next part is produced only after this one arrived
		}
	}
	if strings.Join(got, "|") != "once |upon |a time" {
		t.Fatalf("parts %q", got)
	}
	// Through Do, the same tool gives one joined text.
	go func() {
		for range 2 {
			step <- struct{}{}
		}
	}()
	res, err := exec.Do(context.Background(), &adapter.Request{Spec: spec, Args: json.RawMessage(`{"words":["once ","upon ","a time"]}`)})
	if err != nil || res.Text() != "once upon a time" || len(res.Content) != 1 {
		t.Fatalf("Do: %v, %q (%d blocks)", err, res.Text(), len(res.Content))
	}
	if err := exec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := ledger.Total(); n != 2 {
		t.Fatalf("ledger has %d records, want 2", n)
	}
}

func TestStreamFailuresAndPolicy(t *testing.T) {
	spec := adapter.MustStreamTool("story", "", story(nil), nil)
	exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{
		Guards: []adapter.Guard{{Name: "no-dragons", Input: func(_ context.Context, c *adapter.ToolCall) error {
			if strings.Contains(string(c.Args), "dragon") {
				return errors.New("no dragons")
			}
			return nil
		}}},
	})
	defer exec.Close()
	collect := func(args string) ([]string, error) {
		var parts []string
		for c, err := range exec.Stream(context.Background(), &adapter.Request{Spec: spec, Args: json.RawMessage(args)}) {
			if err != nil {
				return parts, err
			}
			parts = append(parts, c.(*adapter.TextContent).Text)
		}
		return parts, nil
	}
	parts, err := collect(`{"words":["a","b","FAIL","c"]}`)
	if adapter.KindOf(err) != adapter.KindToolError || strings.Join(parts, "") != "ab" {
		t.Fatalf("mid-stream failure: parts %q, err %v", parts, err)
	}
	parts, err = collect(`{"words":["a dragon"]}`)
	if adapter.KindOf(err) != adapter.KindGuardrailBlocked || len(parts) != 0 {
		t.Fatalf("guard: parts %q, err %v", parts, err)
	}
	_, err = collect(`{"words":"not a list"}`)
	if adapter.KindOf(err) != adapter.KindArgsInvalid {
		t.Fatalf("bad args: %v", err)
	}
}

// TestStreamNonStreamingTool: a tool that does not stream yields its
// content blocks at the end.
func TestStreamNonStreamingTool(t *testing.T) {
	spec := adapter.MustTool("list", "", func(context.Context, struct{}) ([]int, error) { return []int{1, 2}, nil }, nil)
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	var got []string
	for c, err := range exec.Stream(context.Background(), &adapter.Request{Spec: spec}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c.(*adapter.TextContent).Text)
	}
	if strings.Join(got, ",") != "1,2" {
		t.Fatalf("got %q", got)
	}
}

// TestStreamBreakCancels: leaving the loop early cancels the call and its
// goroutines end.
func TestStreamBreakCancels(t *testing.T) {
	canceled := make(chan struct{})
	spec := adapter.MustStreamTool("ticker", "", func(ctx context.Context, _ struct{}) iter.Seq2[adapter.Content, error] {
		return func(yield func(adapter.Content, error) bool) {
			defer close(canceled)
			for {
				if !yield(&adapter.TextContent{Text: "tick"}, nil) {
					return
				}
				if ctx.Err() != nil {
					return
				}
			}
		}
	}, nil)
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	n := 0
	for _, err := range exec.Stream(context.Background(), &adapter.Request{Spec: spec}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			break
		}
	}
	select {
	case <-canceled:
	case <-time.After(10 * time.Second):
		t.Fatal("the producer did not stop after the consumer left")
	}
}
