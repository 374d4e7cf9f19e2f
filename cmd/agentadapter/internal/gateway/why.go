package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentadapter/agentadapter/adapter"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
)

// WhyHeld says which part of the policy in force holds a call of tool
// with args for approval, for the console's ticket card: for each
// endpoint serving the tool whose policy holds the call, the rule (its
// number and conditions) or the default that matched. It is evaluated with
// the configuration in force when asked, so a policy edited since the call
// was held may answer otherwise; "" when nothing in force holds it.
func (g *Gateway) WhyHeld(tool string, args json.RawMessage) string {
	spec, ok := g.Registry().Lookup(tool)
	if !ok {
		return ""
	}
	c := &adapter.ToolCall{Spec: spec, Args: args}
	eps := g.eps()
	names := make([]string, 0, len(eps))
	for n := range eps {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		def := eps[n].def
		if def.Virtual != nil && !selects(def.Virtual, spec) {
			continue
		}
		var a *config.Approval
		if def.Policy != nil {
			a = def.Policy.Approval
		}
		if why := whyHeld(a, c); why != "" {
			out = append(out, strings.TrimSuffix("/mcp/"+n, "/")+": "+why)
		}
	}
	return strings.Join(out, "; ")
}

// whyHeld mirrors needsApproval, saying what decided.
func whyHeld(a *config.Approval, c *adapter.ToolCall) string {
	byAnnotations := func(what string) string {
		if !adapter.ApproveByAnnotations(context.Background(), c) {
			return ""
		}
		var is []string
		if c.Spec.Annotations.IsDestructive() {
			is = append(is, "destructive")
		}
		if c.Spec.Annotations.IsOpenWorld() {
			is = append(is, "open-world")
		}
		return fmt.Sprintf("%s: the tool is %s", what, strings.Join(is, " and "))
	}
	if a == nil {
		return byAnnotations(`default "annotations"`)
	}
	for i, r := range a.Rules {
		if ruleMatches(&r, c) {
			if r.Approve != "required" {
				return ""
			}
			return fmt.Sprintf("rule %d (%s) requires approval", i+1, describeRule(&r))
		}
	}
	switch a.Default {
	case "always":
		return `default "always"`
	case "never":
		return ""
	}
	return byAnnotations(`default "annotations"`)
}

func describeRule(r *config.Rule) string {
	var parts []string
	if r.Tool != "" {
		parts = append(parts, fmt.Sprintf("tool %q", r.Tool))
	}
	if r.Server != "" {
		parts = append(parts, fmt.Sprintf("server %q", r.Server))
	}
	if r.Annotation != "" {
		parts = append(parts, "annotation "+r.Annotation)
	}
	keys := make([]string, 0, len(r.Args))
	for k := range r.Args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%q", k, r.Args[k]))
	}
	if len(parts) == 0 {
		return "every call"
	}
	return strings.Join(parts, ", ")
}
