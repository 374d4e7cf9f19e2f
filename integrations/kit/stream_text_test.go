package kit_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

type storyIn struct {
	Words []string `json:"words"`
}

// storySpec yields one text part per word; "FAIL" fails as a tool error,
// "GONE" as a lost connection, "" is a part with no text.
func storySpec() *adapter.Spec {
	return adapter.MustStreamTool("story", "tells a story word by word", func(ctx context.Context, in storyIn) iter.Seq2[adapter.Content, error] {
		return func(yield func(adapter.Content, error) bool) {
			for _, w := range in.Words {
				switch w {
				case "FAIL":
					yield(nil, errors.New("the story broke"))
					return
				case "GONE":
					yield(nil, &adapter.Error{Kind: adapter.KindConnection, Message: "gone"})
					return
				}
				if !yield(&adapter.TextContent{Text: w}, nil) {
					return
				}
			}
		}
	}, nil)
}

func TestStreamText(t *testing.T) {
	reg := registry.New()
	spec := storySpec()
	reg.MustRegister(spec)
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	start := func(args string) (*kit.TextStream, error) {
		return kit.StreamText(context.Background(), exec, &adapter.Request{Spec: spec, Args: []byte(args), Integration: "myfw"}, nil)
	}
	collect := func(ts *kit.TextStream) (chunks []string, err error) {
		for text, e := range ts.All() {
			if e != nil {
				if text != "" {
					t.Errorf("error chunk %q carries text", text)
				}
				return chunks, e
			}
			chunks = append(chunks, text)
		}
		return chunks, nil
	}

	ts, err := start(`{"words":["once","","upon"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := collect(ts); err != nil || !slices.Equal(got, []string{"once", "upon"}) {
		t.Errorf("story = %q, %v; want [once upon] (no empty part), nil", got, err)
	}

	ts, err = start(`{"words":["once","FAIL","upon"]}`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := collect(ts)
	if err != nil || len(got) != 2 || got[0] != "once" {
		t.Fatalf("failing story = %q, %v; want once, then a payload", got, err)
	}
	var pe *adapter.Error
	if want, _ := adapter.ModelPayload(&adapter.Error{Kind: adapter.KindToolError, Tool: "story", Message: "the story broke"}); got[1] != want {
		t.Errorf("last chunk (-want +got):\n%s", cmp.Diff(want, got[1]))
	}

	ts, err = start(`{"words":["once","GONE"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := collect(ts); !errors.As(err, &pe) || pe.Kind != adapter.KindConnection || !slices.Equal(got, []string{"once"}) {
		t.Errorf("lost story = %q, %v; want [once] then a connection error", got, err)
	}

	// A failure before any output is StreamText's error, as Do's would be.
	if ts, err := start(`{"words":5}`); ts != nil || !errors.As(err, &pe) || pe.Kind != adapter.KindArgsInvalid {
		t.Errorf("bad arguments: %v, %v; want no stream and args_invalid", ts, err)
	}

	// Leaving early or not ranging at all ends the call.
	ts, err = start(`{"words":["a","b","c"]}`)
	if err != nil {
		t.Fatal(err)
	}
	for text := range ts.All() {
		if text != "a" {
			t.Errorf("first chunk %q, want a", text)
		}
		break
	}
	if ts, err = start(`{"words":["a"]}`); err != nil {
		t.Fatal(err)
	}
	ts.Close()
}
