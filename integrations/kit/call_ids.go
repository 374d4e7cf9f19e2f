package kit

import "sync"

// CallIDs gives a call the id the model gave it, for a framework that hands
// a tool only its arguments (the Anthropic SDK's tool runner): before the
// framework runs a turn's calls, the integration adds each one's tool,
// arguments (exactly as the framework will hand them to the tool) and id;
// each call the tool runs takes the id of one added call alike. Calls alike
// (one tool, the same arguments) take their ids in the order they ask,
// arbitrary for parallel calls, each a distinct one of theirs. The zero
// value is ready; it is safe for concurrent use.
type CallIDs struct {
	mu  sync.Mutex
	ids map[callKey][]string
}

type callKey struct{ tool, args string }

// Reset forgets the ids not taken, for a new turn.
func (c *CallIDs) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.ids)
}

// Add adds the id of a call of tool on args.
func (c *CallIDs) Add(tool string, args []byte, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ids == nil {
		c.ids = map[callKey][]string{}
	}
	k := callKey{tool, string(args)}
	c.ids[k] = append(c.ids[k], id)
}

// Take returns, once, the id of a call of tool on args: the first added and
// not taken yet, else "" (a call the integration did not add, whose id the
// executor makes up). A nil c has none.
func (c *CallIDs) Take(tool string, args []byte) string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := callKey{tool, string(args)}
	ids := c.ids[k]
	if len(ids) == 0 {
		return ""
	}
	if c.ids[k] = ids[1:]; len(ids) == 1 {
		delete(c.ids, k)
	}
	return ids[0]
}
