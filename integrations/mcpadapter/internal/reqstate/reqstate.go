// Package reqstate mints and verifies the signed requestState of the
// questions an export puts to its callers (MCP 2026-07-28).
package reqstate

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// The requestState of a question put to the client (an input-required
// result, MCP 2026-07-28: an approval question, or a tool's InputRequired)
// carries what the retry needs to be checked without any memory of the
// question: on the stateless endpoint each request is its own
// session, and the retry may reach another replica. It is signed, not
// encrypted: it holds nothing the client does not know already (its own
// subject and session, the tool, the ticket it was shown, a hash of its
// arguments, an expiry, the state its tool returned).
//
// Wire form: base64url(JSON) "." base64url(HMAC-SHA256(key, domain || JSON)).
const (
	// minRequestStateKey is the shortest key [Options.RequestStateKey]
	// accepts: 32 bytes, the size of an HMAC-SHA256 output.
	minRequestStateKey = 32

	// maxRequestState bounds the requestState the export mints and the one
	// it reads: a longer one is refused before any decoding.
	maxRequestState = 4096
	// stateDomain separates these MACs from any other use of the key.
	stateDomain = "agentadapter/requestState/v1\x00"
	// PromptDomain is that of a prompt's relayed question (prompt_relay.go):
	// neither a tool call's state nor a prompt's opens as the other.
	PromptDomain = "agentadapter/requestState/prompt/v1\x00"
	stateVersion = 1
)

// State is what a requestState binds a question to.
type State struct {
	V int `json:"v"`
	// Sub is the caller's subject; Anon says it proved none (see
	// verifyCaller).
	Sub  string `json:"sub"`
	Anon bool   `json:"anon,omitempty"`
	// Ses is the export's session id of the caller when asked.
	Ses string `json:"ses,omitempty"`
	// Srv names the server that asked (Options.Name): exporters
	// sharing a key, such as a gateway's virtual servers, do not take one
	// another's answers.
	Srv string `json:"srv"`
	// Tool and Args (adapter.CanonicalHash of the arguments) are the call
	// asked about.
	Tool string `json:"tool"`
	Args string `json:"args"`
	// Ticket is the approval ticket asked about, or "" for a tool's own
	// question (InputRequired), whose State is In.
	Ticket string `json:"tkt,omitempty"`
	In     string `json:"in,omitempty"`
	// Wait marks a question that only waits for an operator's decision of
	// Ticket (askWait): its answer decides nothing.
	Wait bool `json:"wait,omitempty"`
	// Round counts the times a wait was asked again (maxWaitRounds).
	Round int `json:"rnd,omitempty"`
	// Cont, in a tool's own question (Ticket ""), names the ticket whose
	// approval let the call run: the answer continues that call without
	// being asked again (see continuation). CRnd counts the continued
	// rounds (maxContinueRounds) and N makes the state single-use.
	Cont string `json:"cont,omitempty"`
	CRnd int    `json:"crnd,omitempty"`
	N    string `json:"n,omitempty"`
	// Exp is when the question lapses, in Unix seconds.
	Exp int64 `json:"exp"`
}

// Sealer mints and verifies requestStates with one HMAC key, and
// remembers the continuation states spent (see Spend).
type Sealer struct {
	key []byte

	mu    sync.Mutex
	spent map[string]int64 // a spent state's N → its Exp
}

// maxSpent bounds the spent continuation states remembered: past it, and
// until some expire, no continuation is honoured (the call is asked for
// approval again).
const maxSpent = 8192

// Spend marks the continuation state of nonce n, which lapses at exp
// (Unix seconds), used, and reports whether it was not used before. It is
// single-use per Server: replicas sharing a key do not share this
// memory, and there a replayed continuation is bounded only by its
// ticket's life and by its caller, tool and arguments.
func (s *Sealer) Spend(n string, exp int64, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spent == nil {
		s.spent = map[string]int64{}
	}
	if _, ok := s.spent[n]; ok {
		return false
	}
	if len(s.spent) >= maxSpent {
		for k, e := range s.spent {
			if !now.Before(time.Unix(e, 0)) {
				delete(s.spent, k)
			}
		}
		if len(s.spent) >= maxSpent {
			return false
		}
	}
	s.spent[n] = exp
	return true
}

// NewSealer returns a sealer with a copy of key, or with a random key
// when key is nil.
func NewSealer(key []byte) (*Sealer, error) {
	if key == nil {
		k := make([]byte, minRequestStateKey)
		if _, err := rand.Read(k); err != nil {
			return nil, fmt.Errorf("mcpadapter: request state key: %w", err)
		}
		return &Sealer{key: k}, nil
	}
	if len(key) < minRequestStateKey {
		return nil, fmt.Errorf("mcpadapter: ExportOptions.RequestStateKey has %d bytes, want at least %d", len(key), minRequestStateKey)
	}
	return &Sealer{key: bytes.Clone(key)}, nil
}

func (s *Sealer) mac(domain string, payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(domain))
	m.Write(payload)
	return m.Sum(nil)
}

// Seal returns the requestState of st, or "" when it would exceed
// maxRequestState (an overlong subject): that call is not asked.
func (s *Sealer) Seal(st *State) string { return s.SealIn(stateDomain, st) }

// SealIn is Seal with the MAC of domain.
func (s *Sealer) SealIn(domain string, st *State) string {
	st.V = stateVersion
	payload, err := json.Marshal(st)
	if err != nil {
		return ""
	}
	enc := base64.RawURLEncoding
	out := enc.EncodeToString(payload) + "." + enc.EncodeToString(s.mac(domain, payload))
	if len(out) > maxRequestState {
		return ""
	}
	return out
}

// Why a requestState is refused. The messages go to the client.
var (
	ErrMalformed = errors.New("malformed")
	errTampered  = errors.New("it failed its integrity check (tampered, or minted with another key)")
	errExpired   = errors.New("it has expired; call the tool again to be asked anew")
)

// Open verifies a requestState and returns what it binds. It checks the
// MAC before decoding anything, and the expiry against now.
func (s *Sealer) Open(state string, now time.Time) (*State, error) {
	return s.OpenIn(stateDomain, state, now)
}

// OpenIn is Open with the MAC of domain.
func (s *Sealer) OpenIn(domain, state string, now time.Time) (*State, error) {
	if len(state) > maxRequestState {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrMalformed, maxRequestState)
	}
	p64, m64, ok := strings.Cut(state, ".")
	if !ok || strings.Contains(m64, ".") {
		return nil, ErrMalformed
	}
	enc := base64.RawURLEncoding.Strict() // one spelling per state
	payload, err1 := enc.DecodeString(p64)
	mac, err2 := enc.DecodeString(m64)
	if err1 != nil || err2 != nil {
		// Not our encoding: a state of ours altered, or none of ours.
		return nil, errTampered
	}
	if !hmac.Equal(mac, s.mac(domain, payload)) {
		return nil, errTampered
	}
	var st State
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil || st.V != stateVersion || st.Tool == "" || (st.Ticket != "" && st.In != "") || (st.Wait && st.Ticket == "") || (st.Cont != "" && (st.Ticket != "" || st.N == "")) {
		return nil, ErrMalformed
	}
	if !now.Before(time.Unix(st.Exp, 0)) {
		return nil, errExpired
	}
	return &st, nil
}
