package kit_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestMapParts(t *testing.T) {
	text := func(s string) string { return "text:" + s }
	imagesOnly := func(m *adapter.Media) (string, bool) { return "image:" + m.MIMEType, m.Kind == adapter.MediaImage }
	for _, tt := range []struct {
		name  string
		parts []adapter.Part
		text  func(string) string
		want  []string
	}{
		{"none", nil, text, []string{}},
		{"in order", []adapter.Part{{Text: "a"}, {Media: &adapter.Media{Kind: adapter.MediaImage, MIMEType: "image/png"}}, {Text: "b"}},
			text, []string{"text:a", "image:image/png", "text:b"}},
		{"a kind dropped", []adapter.Part{{Media: &adapter.Media{Kind: adapter.MediaAudio, MIMEType: "audio/wav"}}, {Text: "a"}},
			text, []string{"text:a"}},
		{"media only", []adapter.Part{{Text: "a"}, {Media: &adapter.Media{Kind: adapter.MediaImage, MIMEType: "image/png"}}, {Text: "b"}},
			nil, []string{"image:image/png"}},
		{"media only, none", []adapter.Part{{Text: "a"}}, nil, []string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := kit.MapParts(tt.parts, tt.text, imagesOnly)
			if d := cmp.Diff(tt.want, got); d != "" || got == nil {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestTextMedia(t *testing.T) {
	res := &adapter.Result{Content: []adapter.Content{
		&adapter.TextContent{Text: "a clip and a dot:"},
		&adapter.AudioContent{Data: []byte("RIFF0000WAVE"), MIMEType: "audio/wav"},
		&adapter.ImageContent{Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"},
	}}
	audio := func(k adapter.MediaKind) bool { return k == adapter.MediaAudio }
	for _, tt := range []struct {
		name string
		text func(adapter.MediaKind) bool
		want []string // each part: its text, or "media:<kind>"
	}{
		{"audio as text", audio, []string{"a clip and a dot:", "[audio (audio/wav, 12 bytes)]", "media:image"}},
		{"nil keeps all", nil, []string{"a clip and a dot:", "media:audio", "media:image"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			parts := adapter.RenderParts(res, nil)
			got := kit.TextMedia(parts, tt.text, nil)
			var read []string
			for _, p := range got {
				if p.Media != nil {
					read = append(read, "media:"+string(p.Media.Kind))
				} else {
					read = append(read, p.Text)
				}
			}
			if d := cmp.Diff(tt.want, read); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if parts[1].Media == nil {
				t.Error("TextMedia modified its input")
			}
		})
	}
	// The text is Render's, with the options given.
	if got := adapter.PartsText(kit.TextMedia(adapter.RenderParts(res, nil), audio, nil)); got != adapter.Render(&adapter.Result{Content: res.Content[:2]}, nil) {
		t.Errorf("the text parts read %q, want Render's text of the text and the audio", got)
	}
	if got := kit.TextMedia(nil, audio, nil); got != nil {
		t.Errorf("no parts gave %v, want none", got)
	}
}
