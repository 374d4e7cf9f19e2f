package kit

import "github.com/agentadapter/agentadapter/adapter"

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
