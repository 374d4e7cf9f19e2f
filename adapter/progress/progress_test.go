package progress_test

import (
	"context"
	"testing"

	"github.com/agentadapter/agentadapter/adapter/progress"
)

func TestReport(t *testing.T) {
	ctx := context.Background()
	if progress.Wanted(ctx) {
		t.Fatal("Wanted is true without a listener")
	}
	progress.Report(ctx, progress.Event{Progress: 1}) // no listener: a no-op, no panic

	var got []progress.Event
	ctx = progress.With(ctx, func(e progress.Event) { got = append(got, e) })
	if !progress.Wanted(ctx) {
		t.Fatal("Wanted is false with a listener")
	}
	want := progress.Event{Progress: 3, Total: 10, Message: "indexing"}
	progress.Report(ctx, want)
	if len(got) != 1 || got[0] != want {
		t.Fatalf("listener got %+v, want [%+v]", got, want)
	}
}
