package kit

import (
	"slices"

	"github.com/agentadapter/agentadapter/adapter"
)

// MapParts maps the parts of a result, as [adapter.RenderParts] gives
// them, to a framework's parts, in order: text through text (nil drops
// the text parts: a framework that takes the text apart), media through
// media, whose false drops the part (a kind the framework cannot carry).
// The result is never nil.
func MapParts[P any](parts []adapter.Part, text func(string) P, media func(*adapter.Media) (P, bool)) []P {
	out := make([]P, 0, len(parts))
	for _, p := range parts {
		if p.Media == nil {
			if text != nil {
				out = append(out, text(p.Text))
			}
		} else if m, ok := media(p.Media); ok {
			out = append(out, m)
		}
	}
	return out
}

// TextMedia returns parts with each media part of a kind text reports
// (nil: none) replaced, in place, by a text part holding what
// [adapter.Render] writes for its block with render, for a framework that
// takes some media as parts (images) and not others (audio). parts is not
// modified.
func TextMedia(parts []adapter.Part, text func(adapter.MediaKind) bool, render *adapter.RenderOptions) []adapter.Part {
	out := slices.Clone(parts)
	for i, p := range out {
		if p.Media != nil && text != nil && text(p.Media.Kind) {
			out[i] = adapter.Part{Text: adapter.Render(&adapter.Result{Content: []adapter.Content{p.Content}}, render), Content: p.Content}
		}
	}
	return out
}
