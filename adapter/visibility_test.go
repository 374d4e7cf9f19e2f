package adapter_test

import (
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

func TestModelVisible(t *testing.T) {
	for _, tc := range []struct {
		name string
		meta map[string]any
		want bool
	}{
		{"no meta", nil, true},
		{"other meta", map[string]any{"team": "x"}, true},
		{"ui without visibility", map[string]any{"ui": map[string]any{"resourceUri": "ui://x/app.html"}}, true},
		{"default both", map[string]any{"ui": map[string]any{"visibility": []any{"model", "app"}}}, true},
		{"model only", map[string]any{"ui": map[string]any{"visibility": []string{"model"}}}, true},
		{"app only (wire)", map[string]any{"ui": map[string]any{"resourceUri": "ui://x/app.html", "visibility": []any{"app"}}}, false},
		{"app only (Go)", map[string]any{"ui": map[string]any{"visibility": []string{"app"}}}, false},
		{"empty list", map[string]any{"ui": map[string]any{"visibility": []any{}}}, false},
		{"string, not a list", map[string]any{"ui": map[string]any{"visibility": "model"}}, false},
		{"case differs", map[string]any{"ui": map[string]any{"visibility": []any{"Model"}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &adapter.Spec{Name: "t", Meta: tc.meta}
			if got := s.ModelVisible(); got != tc.want {
				t.Errorf("ModelVisible() with Meta %v = %v, want %v", tc.meta, got, tc.want)
			}
			if got := (registry.Filter{Model: true}).Match(s); got != tc.want {
				t.Errorf("Filter{Model: true}.Match = %v, want %v", got, tc.want)
			}
			if !(registry.Filter{}).Match(s) {
				t.Error("Filter{} left the spec out; only Model reads visibility")
			}
		})
	}
}
