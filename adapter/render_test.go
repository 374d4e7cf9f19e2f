package adapter_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/adapter"
)

// The cross-integration golden (integrations/kit/kittest) pins the policy for
// each kind of block; these are the limits around it.
func TestRenderLimits(t *testing.T) {
	long := strings.Repeat("é", 20) // 40 bytes, 2 per character
	res := &adapter.Result{Content: []adapter.Content{&adapter.EmbeddedResource{Resource: &adapter.ResourceContents{URI: "file:///l.txt", Text: long}}}}
	tests := []struct {
		name string
		opts *adapter.RenderOptions
		want string
	}{
		{"default inlines", nil, "[resource file:///l.txt (40 bytes)]\n" + long},
		{"cut at a character boundary", &adapter.RenderOptions{MaxInlineText: 5}, "[resource file:///l.txt (40 bytes)]\néé\n[… cut: 4 of 40 bytes shown]"},
		{"negative describes only", &adapter.RenderOptions{MaxInlineText: -1}, "[resource file:///l.txt (40 bytes, text, not shown)]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := adapter.Render(res, tt.opts); got != tt.want {
				t.Errorf("Render = %q, want %q", got, tt.want)
			}
		})
	}
	// A flood of text is bounded by the default limit.
	huge := &adapter.Result{Content: []adapter.Content{&adapter.EmbeddedResource{Resource: &adapter.ResourceContents{URI: "u", Text: strings.Repeat("x", 10<<20)}}}}
	if n := len(adapter.Render(huge, nil)); n > adapter.DefaultMaxInlineText+200 {
		t.Errorf("a 10 MiB resource renders as %d bytes", n)
	}
	if adapter.Render(nil, nil) != "" || adapter.Render(&adapter.Result{}, nil) != "" {
		t.Error("an empty result renders as something")
	}
}

// RenderParts gives media as parts and every other block the text Render
// gives it.
func TestRenderParts(t *testing.T) {
	res := &adapter.Result{Content: []adapter.Content{
		&adapter.TextContent{Text: "look:"},
		&adapter.ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"},
		&adapter.AudioContent{Data: []byte{3}, MIMEType: "audio/wav"},
		&adapter.EmbeddedResource{Resource: &adapter.ResourceContents{URI: "file:///b", Blob: make([]byte, 5)}},
	}}
	parts := adapter.RenderParts(res, nil)
	var kinds []string
	for _, p := range parts {
		if p.Media != nil {
			kinds = append(kinds, string(p.Media.Kind)+":"+p.Media.MIMEType)
		} else {
			kinds = append(kinds, "text:"+p.Text)
		}
	}
	want := []string{"text:look:", "image:image/png", "audio:audio/wav", "text:[resource file:///b (5 bytes, binary, not shown)]"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	if got := adapter.PartsText(parts); got != "look:\n[resource file:///b (5 bytes, binary, not shown)]" {
		t.Errorf("PartsText = %q", got)
	}
	st := adapter.RenderParts(&adapter.Result{Structured: map[string]any{"a": "<&>"}}, nil)
	if len(st) != 1 || st[0].Text != `{"a":"<&>"}` {
		t.Errorf("structured-only parts = %+v", st)
	}
}

// Rendering the common result, one text block, costs nothing: the text is
// handed on as is.
func TestRenderAllocs(t *testing.T) {
	res := adapter.TextResult("It is 21.5°C in Paris.")
	if n := testing.AllocsPerRun(100, func() { _ = adapter.Render(res, nil) }); n != 0 {
		t.Errorf("Render of one text block: %v allocations, want 0", n)
	}
}
