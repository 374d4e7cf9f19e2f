package kit

// SplitUnknown sorts the parts of a model's turn, for a framework with no
// hook for calls to tools the agent does not have: unknown holds the calls
// (call reports the tool a part calls) naming a tool known does not
// report, to answer with [Unknown]; rest holds the other parts, in order,
// and calls reports whether rest still holds a call (to a real tool, which
// the framework runs as usual).
func SplitUnknown[P any](parts []P, call func(P) (tool string, ok bool), known func(tool string) bool) (unknown, rest []P, calls bool) {
	for _, p := range parts {
		name, ok := call(p)
		switch {
		case ok && !known(name):
			unknown = append(unknown, p)
		case ok:
			rest, calls = append(rest, p), true
		default:
			rest = append(rest, p)
		}
	}
	return unknown, rest, calls
}
