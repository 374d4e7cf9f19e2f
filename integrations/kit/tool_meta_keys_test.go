package kit

import (
	"maps"
	"slices"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
)

func TestToolMetaKeys(t *testing.T) {
	f := false
	spec := &adapter.Spec{Name: "t", Title: "T", Tags: []string{"a"}, Meta: map[string]any{"k": 1},
		Source:      adapter.Source{Server: "s", RemoteName: "r"},
		Annotations: adapter.Annotations{Destructive: &f}}
	got := slices.Sorted(maps.Keys(ToolMeta(spec)))
	want := []string{MetaMeta, MetaAnnotations, MetaRemoteName, MetaSource, MetaTags, MetaTitle}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("ToolMeta keys = %q, want %q", got, want)
	}
}
