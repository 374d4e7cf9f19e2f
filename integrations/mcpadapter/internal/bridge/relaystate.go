package bridge

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The relay's state: what the export hands an upstream's question to a
// caller of 2026-07-28 with, and reads back with its answers.
const (
	// RelayPrefix marks an InputRequired.State minted by the relay.
	RelayPrefix = "aa-relay/1."
	// MaxRelayState bounds that state: the prefix and base64url of the
	// JSON of a relayState.
	MaxRelayState = 2400
)

// RelayState is what a caller of 2026-07-28 brings back with its answers.
type RelayState struct {
	Srv   string `json:"s"`           // the upstream server
	Tool  string `json:"t"`           // its name of the tool
	Round int    `json:"r"`           // rounds asked so far
	Up    string `json:"u,omitempty"` // the upstream's requestState
}

// Encode returns st as an InputRequired.State, and whether it is within
// MaxRelayState.
func (st *RelayState) Encode() (string, bool) {
	b, err := json.Marshal(st)
	if err != nil {
		return "", false
	}
	out := RelayPrefix + base64.RawURLEncoding.EncodeToString(b)
	return out, len(out) <= MaxRelayState
}

// DecodeRelayState decodes a state Encode made.
func DecodeRelayState(state string) (*RelayState, bool) {
	if !strings.HasPrefix(state, RelayPrefix) {
		return nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(state, RelayPrefix))
	if err != nil {
		return nil, false
	}
	var st RelayState
	if json.Unmarshal(b, &st) != nil {
		return nil, false
	}
	return &st, true
}

// ReservedInputPrefix prefixes the ids of the questions the export asks
// its callers itself (approvalInputPrefix, waitInputPrefix).
const ReservedInputPrefix = "agentadapter/"

// RelayedInputPrefix prefixes, to the caller, an upstream's question whose
// id has the reserved prefix: "agentadapter/relayed/" and the upstream's
// id. The export recognises its own questions by their exact ids
// (approvalInputPrefix or waitInputPrefix and a ticket), which a relayed
// id never is.
const RelayedInputPrefix = ReservedInputPrefix + "relayed/"

// UpstreamAnswers returns the caller's answers as they go upstream: an
// answer under a relayed id (RelayedInputPrefix) under the upstream's id,
// the prefix taken off once; one under any other id with the reserved
// prefix is the export's own, or answers nothing the upstream asked (its
// reserved ids reach the caller relayed), and is not forwarded; the rest
// as they came.
func UpstreamAnswers(answers mcp.InputResponseMap) mcp.InputResponseMap {
	var out mcp.InputResponseMap
	for id, r := range answers {
		if ReservedID(id) {
			up, ok := strings.CutPrefix(id, RelayedInputPrefix)
			if !ok {
				continue
			}
			id = up
		}
		if out == nil {
			out = make(mcp.InputResponseMap, len(answers))
		}
		out[id] = r
	}
	return out
}

// ReservedID reports whether a question id has the reserved prefix, in
// any case.
func ReservedID(id string) bool {
	return len(id) >= len(ReservedInputPrefix) && strings.EqualFold(id[:len(ReservedInputPrefix)], ReservedInputPrefix)
}
