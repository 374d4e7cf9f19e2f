// Package sqlkv holds the keyed tables the database stores share: console
// sessions, standing decisions, definition pins, OAuth tokens, cached
// results, secrets, and the reads of approval tickets and the ledger. The
// statements are written once, with "?" parameters; a [Dialect] says what
// differs between SQLite and PostgreSQL (the parameters' spelling, the
// no-rows error, the key order), and each store reaches its database
// through a [DB]. The stores' public types delegate to these, so their
// SQL, errors and messages are the same but for the store's name.
//
//	t := sqlkv.New(db, sqlkv.Dialect{Name: "pgstore", Numbered: true, NoRows: pgx.ErrNoRows, ...})
//	err := t.Sessions().Put(ctx, key, value, expires)
package sqlkv

import (
	"context"
	"database/sql"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// DB runs a store's statements, as database/sql and pgx both can.
type DB interface {
	// Exec runs a statement and returns the rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// QueryRow runs a query of at most one row.
	QueryRow(ctx context.Context, query string, args ...any) Row
	// Query runs a query; the caller closes the rows.
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Row is a query's one row.
type Row interface {
	Scan(dest ...any) error
}

// Rows are a query's rows.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Dialect is what a store brings to the shared tables.
type Dialect struct {
	// Name opens every error message ("sqlitestore").
	Name string
	// Numbered spells the n-th parameter "$n" (PostgreSQL) instead of "?".
	Numbered bool
	// NoRows is the error of a QueryRow that found no row.
	NoRows error
	// Collate follows ORDER BY on a text key to sort it byte by byte:
	// ` COLLATE "C"` on PostgreSQL, empty on SQLite (whose BINARY
	// collation does so).
	Collate string
	// ErrSessionTooLarge is the store's sentinel for [Sessions.Put].
	ErrSessionTooLarge error
	// Now is the store's clock.
	Now func() time.Time
	// Logger receives the errors of the cache and the sweep loop.
	Logger *slog.Logger
	// TokenKeys encrypt the tokens table's tokens ([token.Encode]); nil
	// keeps the shared identity's in the clear and refuses per-user ones.
	TokenKeys *token.Keyring
}

// Tables are a store's shared tables. They are safe for concurrent use.
type Tables struct {
	db DB
	d  Dialect
	q  statements
}

// New returns the tables of db, in d's dialect.
func New(db DB, d Dialect) *Tables {
	t := &Tables{db: db, d: d, q: base}
	t.q.pinsAll += d.Collate
	if d.Numbered {
		t.q.number()
	}
	return t
}

// The tables, each a view of [Tables].
type (
	// Sessions is the table of console login sessions.
	Sessions struct{ t *Tables }
	// Standing is the table of standing decisions, an
	// [approval.StandingStore].
	Standing struct{ t *Tables }
	// Pins is the table of definition pins, a [pin.Store].
	Pins struct{ t *Tables }
	// Tokens is the table of OAuth tokens, a [token.Store].
	Tokens struct{ t *Tables }
	// SignIns is the table of per-user sign-ins in progress.
	SignIns struct{ t *Tables }
	// Cache is the table of cached results, an [adapter.Cache]. Database
	// errors are logged and read as misses.
	Cache struct{ t *Tables }
	// Tickets reads the approval tickets table; each store writes it with
	// its own transactions and locks.
	Tickets struct{ t *Tables }
	// Ledger reads the ledger table; each store appends to it and verifies
	// it in its own transactions.
	Ledger struct{ t *Tables }
)

// Sessions returns the login sessions.
func (t *Tables) Sessions() Sessions { return Sessions{t} }

// Standing returns the standing decisions.
func (t *Tables) Standing() Standing { return Standing{t} }

// Pins returns the definition pins.
func (t *Tables) Pins() Pins { return Pins{t} }

// Tokens returns the OAuth tokens.
func (t *Tables) Tokens() Tokens { return Tokens{t} }

// SignIns returns the sign-ins in progress.
func (t *Tables) SignIns() SignIns { return SignIns{t} }

// Cache returns the result cache.
func (t *Tables) Cache() Cache { return Cache{t} }

// Tickets returns the approval tickets.
func (t *Tables) Tickets() Tickets { return Tickets{t} }

// Ledger returns the ledger's reads.
func (t *Tables) Ledger() Ledger { return Ledger{t} }

// Sweep deletes the cache entries, login sessions and sign-ins expired at now, and
// returns each statement's error (nil for a success).
func (t *Tables) Sweep(ctx context.Context, now time.Time) []error {
	_, err1 := t.db.Exec(ctx, t.q.cacheSweep, now.UnixNano())
	_, err2 := t.db.Exec(ctx, t.q.sessionsSweep, now.UnixNano())
	_, err3 := t.db.Exec(ctx, t.q.signInsSweep, now.UnixNano())
	return []error{err1, err2, err3}
}

// statements are the tables' SQL, "?" parameters until number.
type statements struct {
	sessionsPut, sessionsGet, sessionsDelete, sessionsSweep string
	standingPut, standingDelete, standingAll                string
	pinsGet, pinsSetIfAbsent, pinsSet, pinsAll              string
	tokensGet, tokensPut, tokensDelete                      string
	signInsPut, signInsTrim, signInsGet, signInsClaim       string
	signInsTake, signInsSweep                               string
	cacheGet, cacheAdd, cacheSweep                          string
	ticketsGet, ticketsFind, ticketsAll, ticketsInState     string
	secretsPut, secretsGet                                  string
}

// base are the statements with "?" parameters, as SQLite runs them.
var base = statements{
	sessionsPut: `INSERT INTO console_sessions (key, value, expires) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
	sessionsGet:    "SELECT value FROM console_sessions WHERE key = ? AND expires > ?",
	sessionsDelete: "DELETE FROM console_sessions WHERE key = ?",
	sessionsSweep:  "DELETE FROM console_sessions WHERE expires <= ?",

	standingPut: `INSERT INTO standing (tool, subject, verdict, reason, approver, created, ticket)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (tool, subject) DO UPDATE SET verdict = excluded.verdict, reason = excluded.reason,
			approver = excluded.approver, created = excluded.created, ticket = excluded.ticket`,
	standingDelete: "DELETE FROM standing WHERE tool = ? AND subject = ?",
	standingAll:    "SELECT tool, subject, verdict, reason, approver, created, ticket FROM standing ORDER BY tool, subject",

	pinsGet: "SELECT hash FROM pins WHERE key = ?",
	pinsSetIfAbsent: `INSERT INTO pins (key, hash, updated) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET key = excluded.key RETURNING hash`,
	pinsSet: `INSERT INTO pins (key, hash, updated) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET hash = excluded.hash, updated = excluded.updated`,
	pinsAll: "SELECT key, hash FROM pins ORDER BY key",

	tokensGet: "SELECT token FROM tokens WHERE server = ? AND subject = ? AND issuer = ? AND resource = ?",
	tokensPut: `INSERT INTO tokens (server, subject, issuer, resource, token, updated) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (server, subject, issuer, resource) DO UPDATE SET token = excluded.token, updated = excluded.updated`,
	tokensDelete: "DELETE FROM tokens WHERE server = ? AND subject = ? AND issuer = ? AND resource = ?",

	// A subject's sign-ins past its bound are trimmed oldest first; ties
	// on created go by key, so that every replica trims the same rows.
	signInsPut: `INSERT INTO signins (key, subject, value, claim, created, expires) VALUES (?, ?, ?, '', ?, ?)`,
	signInsTrim: `DELETE FROM signins WHERE subject = ? AND key NOT IN
		(SELECT key FROM signins WHERE subject = ? AND expires > ? ORDER BY created DESC, key DESC LIMIT ?)`,
	signInsGet: "SELECT value, claim FROM signins WHERE key = ? AND expires > ?",
	// Claim and take are one statement each: of racing replicas, one
	// changes (or deletes) the row and gets it back, the others nothing.
	signInsClaim: "UPDATE signins SET claim = ? WHERE key = ? AND claim = '' AND expires > ? RETURNING value",
	signInsTake:  "DELETE FROM signins WHERE key = ? AND expires > ? RETURNING value, claim",
	signInsSweep: "DELETE FROM signins WHERE expires <= ?",

	cacheGet: "SELECT value FROM cache WHERE key = ? AND expires > ?",
	cacheAdd: `INSERT INTO cache (key, value, expires) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
	cacheSweep: "DELETE FROM cache WHERE expires <= ?",

	ticketsGet: "SELECT " + TicketColumns + " FROM tickets WHERE id = ?",
	ticketsFind: "SELECT " + TicketColumns + ` FROM tickets
		WHERE tool = ? AND args_hash = ? AND scope = ? AND scope_id = ? AND state <> 4 AND (expires = 0 OR expires >= ?)
		ORDER BY n DESC LIMIT 1`,
	ticketsAll:     "SELECT " + TicketColumns + " FROM tickets ORDER BY n",
	ticketsInState: "SELECT " + TicketColumns + " FROM tickets WHERE state = ? ORDER BY n",

	secretsPut: "INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
	secretsGet: "SELECT value FROM secrets WHERE name = ?",
}

// number spells every statement's parameters "$1", "$2", ...
func (q *statements) number() {
	for _, p := range []*string{
		&q.sessionsPut, &q.sessionsGet, &q.sessionsDelete, &q.sessionsSweep,
		&q.standingPut, &q.standingDelete, &q.standingAll,
		&q.pinsGet, &q.pinsSetIfAbsent, &q.pinsSet, &q.pinsAll,
		&q.tokensGet, &q.tokensPut, &q.tokensDelete,
		&q.signInsPut, &q.signInsTrim, &q.signInsGet, &q.signInsClaim, &q.signInsTake, &q.signInsSweep,
		&q.cacheGet, &q.cacheAdd, &q.cacheSweep,
		&q.ticketsGet, &q.ticketsFind, &q.ticketsAll, &q.ticketsInState,
		&q.secretsPut, &q.secretsGet,
	} {
		*p = numbered(*p)
	}
}

// numbered returns stmt with its n-th "?" spelled "$n"; the statements
// hold no "?" in a literal.
func numbered(stmt string) string {
	var b strings.Builder
	n := 0
	for {
		i := strings.IndexByte(stmt, '?')
		if i < 0 {
			b.WriteString(stmt)
			return b.String()
		}
		n++
		b.WriteString(stmt[:i])
		b.WriteString("$" + strconv.Itoa(n))
		stmt = stmt[i+1:]
	}
}

// SQL returns db as a [DB].
func SQL(db *sql.DB) DB { return sqlDB{db} }

type sqlDB struct{ db *sql.DB }

func (d sqlDB) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := d.db.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (d sqlDB) QueryRow(ctx context.Context, query string, args ...any) Row {
	return d.db.QueryRowContext(ctx, query, args...)
}

func (d sqlDB) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

// sqlRows drops the error of Close, as pgx does: a read's error is Err's.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }
