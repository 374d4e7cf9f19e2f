package main

import (
	"sort"

	"github.com/spf13/cobra"
)

func newInspectCmd(e *env) *cobra.Command {
	return &cobra.Command{Use: "inspect", Short: "Show the tools as each framework sees them"}
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
