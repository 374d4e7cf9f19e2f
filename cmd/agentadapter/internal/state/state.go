// Package state opens the gateway's durable state: approval tickets, the
// ledger, the result cache, console login sessions and definition pins,
// shared by a running gateway and the approvals, ledger and pins commands
// (other processes).
package state

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	ledger0 "github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/console"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
	pgstore "github.com/agentadapter/agentadapter/store/postgres"
	sqlitestore "github.com/agentadapter/agentadapter/store/sqlite"
)

// Store is what the gateway keeps between runs and shares between
// processes.
type Store interface {
	// Tickets keeps approval tickets.
	Tickets() approval.Store
	// Ledger records calls.
	Ledger() ledger0.Ledger
	// Records yields the ledger records q selects.
	Records(ctx context.Context, q ledger0.Query) iter.Seq2[ledger0.Record, error]
	// Verify checks the ledger's hash chain.
	Verify(ctx context.Context) error
	// Head returns the ledger's chain head, to keep elsewhere.
	Head(ctx context.Context) (ledger0.Head, error)
	// VerifyHead is Verify that also fails when the chain no longer holds
	// kept ([adapter.HeadVerifier]).
	VerifyHead(ctx context.Context, kept ledger0.Head) error
	// Cache holds cached results; nil means one in process memory.
	Cache() adapter.Cache
	// Sessions holds console login sessions, apart from cached results;
	// nil means the console keeps them in process memory.
	Sessions() console.SessionKV
	// Pins keeps accepted tool definition hashes.
	Pins() pin.Store
	// Quarantines are the changed definitions awaiting review, as the
	// gateway last reported them (pins diff shows them, pins accept
	// accepts one).
	Quarantines(ctx context.Context) ([]Quarantine, error)
	SetQuarantines(ctx context.Context, q []Quarantine) error
	// Secret returns the secret called name, size random bytes made once
	// and the same for every process on the store.
	Secret(ctx context.Context, name string, size int) ([]byte, error)
	Close() error
}

// Quarantine is a tool whose definition changed after it was pinned.
type Quarantine struct {
	Server     string          `json:"server"`
	Tool       string          `json:"tool"`
	RemoteName string          `json:"remote_name"`
	Pinned     string          `json:"pinned"`
	Got        string          `json:"got"`
	Definition json.RawMessage `json:"definition,omitempty"`
	Previous   json.RawMessage `json:"previous,omitempty"`
}

// Options configure [Open]. The zero value opens a store whose token
// table keeps no per-user tokens.
type Options struct {
	// TokenKeys seal the per-user upstream tokens of the store's token
	// table ([TokenStorer]): with them a SQLite or PostgreSQL store keeps
	// the tokens of oauth.perCaller servers, shared by every process on
	// it; nil refuses per-user tokens there.
	TokenKeys *token.Keyring
}

// Open opens a store from its configuration string: "sqlite:PATH" (the
// default; shared by every process on the machine), "postgres://..."
// (shared by replicas on several machines) or "memory:" (this process
// only). A nil opts is the zero Options.
func Open(ctx context.Context, spec string, opts *Options) (Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	toks := token.StoreOptions{Keys: o.TokenKeys, PerUser: o.TokenKeys != nil}
	scheme, rest, _ := strings.Cut(spec, ":")
	switch scheme {
	case "memory":
		return NewMemory(), nil
	case "sqlite":
		if rest == "" {
			return nil, errors.New(`store "sqlite:" needs a path: sqlite:PATH`)
		}
		if err := os.MkdirAll(filepath.Dir(rest), 0o700); err != nil {
			return nil, err
		}
		db, err := sqlitestore.Open(ctx, rest, &sqlitestore.Options{Tokens: toks})
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", rest, err)
		}
		return &durable{tickets: db.Tickets(), ledger: db.Ledger(), cache: db.Cache(), sessions: db.Sessions(), standing: db.Standing(), pins: db.Pins(), close: db.Close,
			secret: db.Secret, tokens: tokenTable(db.Tokens(), o.TokenKeys), signIns: db.SignIns(), quarantine: rest + ".quarantine.json"}, nil
	case "postgres", "postgresql":
		// Durable: a replica answers a call once its record is committed
		// (concurrent calls share commits). Batched in memory, the records
		// of calls already answered died with a replica killed by SIGKILL
		// or the OOM killer, and a fleet's replicas are killed routinely.
		db, err := pgstore.Open(ctx, spec, &pgstore.Options{Durable: true, Tokens: toks})
		if err != nil {
			return nil, fmt.Errorf("opening the postgres store: %w", err)
		}
		// The quarantine list is the reviewing operator's: kept on this
		// machine, one file per database.
		sum := sha256.Sum256([]byte(spec))
		dir := filepath.Join(stateDir(), "quarantine")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			db.Close()
			return nil, err
		}
		return &durable{tickets: db.Tickets(), ledger: db.Ledger(), cache: db.Cache(), sessions: db.Sessions(), standing: db.Standing(), pins: db.Pins(), close: db.Close,
			secret: db.Secret, tokens: tokenTable(db.Tokens(), o.TokenKeys), signIns: db.SignIns(), quarantine: filepath.Join(dir, hex.EncodeToString(sum[:8])+".json")}, nil
	}
	return nil, fmt.Errorf("store %q: use sqlite:PATH, postgres://... or memory:", spec)
}

// Memory is a Store in process memory, for tests and "memory:".
type Memory struct {
	tickets *approval.MemoryStore
	ledger  *ledger0.Memory
	pins    *pin.MemoryStore
	mu      sync.Mutex
	quar    []Quarantine
	secrets map[string][]byte
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{tickets: approval.NewMemoryStore(), ledger: ledger0.NewMemory(0), pins: pin.NewMemoryStore(nil)}
}

func (m *Memory) Tickets() approval.Store { return m.tickets }
func (m *Memory) Ledger() ledger0.Ledger  { return m.ledger }
func (m *Memory) Records(ctx context.Context, q ledger0.Query) iter.Seq2[ledger0.Record, error] {
	return m.ledger.Query(ctx, q)
}
func (m *Memory) Verify(ctx context.Context) error { return m.ledger.Verify(ctx) }
func (m *Memory) Cache() adapter.Cache             { return nil }
func (m *Memory) Sessions() console.SessionKV      { return nil }
func (m *Memory) Pins() pin.Store                  { return m.pins }
func (m *Memory) Quarantines(context.Context) ([]Quarantine, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Quarantine(nil), m.quar...), nil
}
func (m *Memory) SetQuarantines(_ context.Context, q []Quarantine) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.quar = append([]Quarantine(nil), q...)
	return nil
}
func (m *Memory) Close() error { return nil }

// Secret implements Store: made on first use, for this process only.
func (m *Memory) Secret(_ context.Context, name string, size int) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.secrets[name]; ok {
		if len(v) != size {
			return nil, fmt.Errorf("secret %q has %d bytes, want %d", name, len(v), size)
		}
		return v, nil
	}
	if size <= 0 {
		return nil, fmt.Errorf("secret %q of size %d", name, size)
	}
	v := make([]byte, size)
	if _, err := rand.Read(v); err != nil {
		return nil, err
	}
	if m.secrets == nil {
		m.secrets = map[string][]byte{}
	}
	m.secrets[name] = v
	return v, nil
}

func (m *Memory) Head(ctx context.Context) (ledger0.Head, error) {
	return m.ledger.Head(ctx)
}
func (m *Memory) VerifyHead(ctx context.Context, kept ledger0.Head) error {
	return m.ledger.VerifyHead(ctx, kept)
}

// ledger is what the durable stores' ledgers offer.
type ledger interface {
	ledger0.Ledger
	ledger0.Reader
	ledger0.HeadVerifier
}

// A StandingStorer is a Store that keeps standing decisions apart from the
// ledger (SQLite and PostgreSQL); the gateway reads them with
// approval.Standing.Sync instead of replaying the ledger's "standing"
// records, which a retention sweep may drop.
type StandingStorer interface {
	Standing() approval.StandingStore
}

// A TokenStorer is a Store with a token table (SQLite and PostgreSQL):
// the gateway keeps the per-user tokens of oauth.perCaller servers there,
// sealed with Options.TokenKeys, so that every replica on the store reads
// the tokens any of them wrote (#27).
type TokenStorer interface {
	// Tokens returns the token table, nil without Options.TokenKeys.
	Tokens() token.Store
}

// A SignInStorer is a Store with a table of sign-ins in progress (SQLite
// and PostgreSQL): the gateway keeps its per-user sign-ins there, sealed,
// so that a sign-in one replica began completes at the callback reaching
// another (#27).
type SignInStorer interface {
	// SignIns returns the table.
	SignIns() SignInTable
}

// A SignInTable keeps sign-ins in progress by key, their values opaque
// (the gateway seals them). Claim and Take are atomic: of racing
// replicas, one wins. Expired rows are never returned.
type SignInTable interface {
	// Put adds value under key for subject, from created until expires,
	// then forgets the oldest of subject's past max; a key already held
	// is an error.
	Put(ctx context.Context, key, subject string, value []byte, created, expires time.Time, max int) error
	// Get returns the value under key and its claim ("" for none).
	Get(ctx context.Context, key string) (value []byte, claim string, ok bool, err error)
	// Claim sets the claim of key's row if it has none, and returns its
	// value; ok is false when there is no such row or it is claimed.
	Claim(ctx context.Context, key, claim string) (value []byte, ok bool, err error)
	// Take deletes and returns key's row: one caller ever gets it.
	Take(ctx context.Context, key string) (value []byte, claim string, ok bool, err error)
}

// durable is a SQLite or PostgreSQL store; quarantines (a short list,
// written by the gateway, read by pins) live in a file (beside a SQLite
// database).
type durable struct {
	tickets    approval.Store
	ledger     ledger
	cache      adapter.Cache
	sessions   console.SessionKV
	standing   approval.StandingStore
	pins       pin.Store
	close      func() error
	secret     func(ctx context.Context, name string, size int) ([]byte, error)
	tokens     token.Store
	signIns    SignInTable
	quarantine string
}

// SignIns returns the store's sign-ins in progress (see [SignInStorer]).
func (s *durable) SignIns() SignInTable { return s.signIns }

// Tokens returns the store's token table (see [TokenStorer]), nil when
// the store was opened without Options.TokenKeys.
func (s *durable) Tokens() token.Store { return s.tokens }

// tokenTable is t when keys seal its per-user tokens, else nil.
func tokenTable(t token.Store, keys *token.Keyring) token.Store {
	if keys == nil {
		return nil
	}
	return t
}

func (s *durable) Tickets() approval.Store { return s.tickets }
func (s *durable) Ledger() ledger0.Ledger  { return s.ledger }
func (s *durable) Records(ctx context.Context, q ledger0.Query) iter.Seq2[ledger0.Record, error] {
	return s.ledger.Query(ctx, q)
}
func (s *durable) Verify(ctx context.Context) error { return s.ledger.Verify(ctx) }
func (s *durable) Cache() adapter.Cache             { return s.cache }
func (s *durable) Sessions() console.SessionKV      { return s.sessions }
func (s *durable) Pins() pin.Store                  { return s.pins }

// Standing returns the table of standing decisions (see [StandingStorer]).
func (s *durable) Standing() approval.StandingStore { return s.standing }
func (s *durable) Quarantines(context.Context) ([]Quarantine, error) {
	b, err := os.ReadFile(s.quarantine)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var q []Quarantine
	if err := json.Unmarshal(b, &q); err != nil {
		return nil, fmt.Errorf("%s: %w", s.quarantine, err)
	}
	return q, nil
}
func (s *durable) SetQuarantines(_ context.Context, q []Quarantine) error {
	b, err := json.Marshal(q)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.quarantine), ".quarantine-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// Renamed over the old file: a reader sees the old list or the new one.
	return os.Rename(tmp.Name(), s.quarantine)
}
func (s *durable) Close() error { return s.close() }
func (s *durable) Secret(ctx context.Context, name string, size int) ([]byte, error) {
	return s.secret(ctx, name, size)
}

func (s *durable) Head(ctx context.Context) (ledger0.Head, error) {
	return s.ledger.Head(ctx)
}
func (s *durable) VerifyHead(ctx context.Context, kept ledger0.Head) error {
	return s.ledger.VerifyHead(ctx, kept)
}

// stateDir is $XDG_STATE_HOME/agentadapter, else ~/.local/state/agentadapter.
func stateDir() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "agentadapter")
}
