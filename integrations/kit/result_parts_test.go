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
