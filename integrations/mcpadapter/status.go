package mcpadapter

// transportName names how s is reached, for status displays.
func (s *Upstream) transportName() string {
	switch {
	case s.Command != "":
		return "stdio"
	case s.URL != "" && s.SSE:
		return "sse"
	case s.URL != "":
		return "http"
	}
	return "custom"
}
