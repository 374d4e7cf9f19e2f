package argcheck

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxListedItems is how many items of a quoted list a bounded message keeps.
const maxListedItems = 3

// BoundMessage shortens s to at most limit bytes (adapter.MaxMessageBytes):
// quoted lists such as ["a" "b" "c" "d"] keep their first few items and the count of the rest,
// and what is still too long is cut at a rune boundary, saying how much
// was left out.
func BoundMessage(s string, limit int) string {
	if len(s) <= 256 {
		return s
	}
	s = shortenLists(s)
	if len(s) <= limit {
		return s
	}
	suffix := fmt.Sprintf("… (%d more bytes)", len(s)-limit)
	cut := limit - len(suffix)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + suffix
}

// shortenLists rewrites each [ "a" "b" ... ] list of Go-quoted strings (as
// fmt's %q prints a []string) with more than maxListedItems items as
// ["a" "b" "c" and N more].
func shortenLists(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "[\"")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+1])
		s = s[i+1:]
		var items []string
		rest := s
		for len(rest) > 0 && rest[0] == '"' {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				break
			}
			items = append(items, q)
			rest = rest[len(q):]
			if len(rest) > 0 && rest[0] == ' ' {
				rest = rest[1:]
			}
		}
		if len(items) <= maxListedItems || len(rest) == 0 || rest[0] != ']' {
			continue // not a list, or a short one: keep it as it is
		}
		b.WriteString(strings.Join(items[:maxListedItems], " "))
		fmt.Fprintf(&b, " and %d more", len(items)-maxListedItems)
		s = rest
	}
}
