package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	_ "github.com/ncruces/go-sqlite3/driver" // the database/sql driver "sqlite3"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
	"github.com/agentadapter/agentadapter/store/internal/migrations"
	"github.com/agentadapter/agentadapter/store/internal/sqlkv"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// ErrSchemaTooNew is returned by [Open] for a database whose schema was
// written by a newer version of this package.
var ErrSchemaTooNew = errors.New("sqlitestore: database schema is newer than this program")

// Defaults for [Options].
const (
	DefaultLedgerBuffer = 16384
	DefaultBatchSize    = 1024
	DefaultLedgerLinger = 20 * time.Millisecond
	DefaultPollInterval = 50 * time.Millisecond
	DefaultBusyTimeout  = 10 * time.Second
)

// Options configure a [Store]. The zero value is the documented default
// of every field.
type Options struct {
	// Durable makes the ledger synchronous: the executor writes each
	// record on the call's path and the call returns once it is committed
	// and synced to disk ([ledger.Durable]). The default writes
	// records in batches from a background goroutine: a slow disk never
	// stalls a call, and records the buffer cannot take are refused (the
	// executor counts them as failed).
	Durable bool
	// Retention is how long ledger records are kept; a background sweep
	// deletes older ones (moving the chain's anchor past them). Zero keeps
	// every record.
	Retention time.Duration
	// SweepInterval is how often the sweep runs (it also drops expired
	// cache entries, tickets and login sessions); zero means a minute.
	SweepInterval time.Duration
	// LedgerBuffer bounds the records waiting for a batch; zero means
	// DefaultLedgerBuffer.
	LedgerBuffer int
	// BatchSize bounds the records committed in one transaction; zero
	// means DefaultBatchSize.
	BatchSize int
	// LedgerLinger is how long the background writer waits after a
	// batch's first record for more to join it: under load fewer, larger
	// commits, each costing the same BEGIN, chain head and COMMIT (a
	// record reaches the database up to this much later; a call never
	// waits for it). Zero means DefaultLedgerLinger, negative none; a
	// Durable ledger commits at once.
	LedgerLinger time.Duration
	// PollInterval is how often [Tickets.Wait] looks for a decision made by
	// another process; decisions made through this process wake it at
	// once. Zero means DefaultPollInterval.
	PollInterval time.Duration
	// BusyTimeout is how long a statement waits for another process's
	// write lock; zero means DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Logger receives operational logs; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Tokens says how the OAuth tokens of [Store.Tokens] are kept at
	// rest: with Tokens.Keys every token is written encrypted (AES-256-GCM);
	// the zero value keeps the shared identity's in the clear and refuses
	// per-user ones. With Tokens.PerUser and no keys, Open fails with
	// [token.ErrNoKey].
	Tokens token.StoreOptions
}

// Store is a SQLite database holding the state of one or more executors
// and MCP managers. Several Stores, in one process or many, may open the
// same file. It is safe for concurrent use.
type Store struct {
	db     *sql.DB
	path   string
	opts   Options
	logger *slog.Logger
	wake   *waker

	ledger  *Ledger
	tickets *Tickets
	cache   *Cache
	pins    *Pins
	tokens  *Tokens
	kv      *sqlkv.Tables

	stop context.CancelFunc
	wg   sync.WaitGroup
	once sync.Once
}

// Open opens (creating if needed) the database at path, brings its schema
// up to date, and starts the background ledger writer and sweep. It fails
// with [ErrSchemaTooNew] for a database written by a newer version.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	s := &Store{path: path}
	if opts != nil {
		s.opts = *opts
	}
	o := &s.opts
	if err := o.Tokens.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", "sqlitestore", err)
	}
	if o.LedgerBuffer <= 0 {
		o.LedgerBuffer = DefaultLedgerBuffer
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.LedgerLinger == 0 {
		o.LedgerLinger = DefaultLedgerLinger
	}
	if o.Durable || o.LedgerLinger < 0 {
		o.LedgerLinger = 0
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = DefaultBusyTimeout
	}
	if o.SweepInterval <= 0 {
		o.SweepInterval = time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s.logger = o.Logger
	if s.logger == nil {
		s.logger = slog.Default()
	}
	syncMode := "normal"
	if o.Durable {
		syncMode = "full"
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", o.BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(wal)")
	q.Add("_pragma", "synchronous("+syncMode+")")
	q.Add("_pragma", "foreign_keys(on)")
	q.Set("_txlock", "immediate")
	// The database holds OAuth tokens and approval arguments: private.
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
	db, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: %w", err)
	}
	s.db = db
	s.kv = sqlkv.New(sqlkv.SQL(db), sqlkv.Dialect{Name: "sqlitestore", NoRows: sql.ErrNoRows,
		ErrSessionTooLarge: ErrSessionTooLarge, Now: s.now, Logger: s.logger, TokenKeys: o.Tokens.Keys})
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	s.wake = wakerFor(abs)
	s.ledger = newLedger(s)
	s.tickets = &Tickets{s: s, t: s.kv.Tickets()}
	s.cache = &Cache{t: s.kv.Cache()}
	s.pins = &Pins{t: s.kv.Pins()}
	s.tokens = &Tokens{t: s.kv.Tokens()}
	bg, stop := context.WithCancel(context.Background())
	s.stop = stop
	s.wg.Go(func() { s.kv.SweepEvery(bg, s.opts.SweepInterval, s.Sweep) })
	return s, nil
}

// Close flushes the ledger, stops the background work and closes the
// database.
func (s *Store) Close() error {
	var err error
	s.once.Do(func() {
		s.ledger.close()
		s.stop()
		s.wg.Wait()
		releaseWaker(s.wake)
		err = s.db.Close()
	})
	return err
}

// Ledger returns the store's ledger.
func (s *Store) Ledger() *Ledger { return s.ledger }

// Tickets returns the store's approval ticket store.
func (s *Store) Tickets() *Tickets { return s.tickets }

// Cache returns the store's result cache.
func (s *Store) Cache() *Cache { return s.cache }

// Pins returns the store's definition pins.
func (s *Store) Pins() *Pins { return s.pins }

// Tokens returns the store's OAuth token store.
func (s *Store) Tokens() *Tokens { return s.tokens }

func (s *Store) now() time.Time { return s.opts.Now() }

// migrate applies the embedded migrations the database lacks, each in a
// transaction with its version number (PRAGMA user_version).
func migrate(ctx context.Context, db *sql.DB) error {
	ms := migrations.Load(migrationFiles)
	latest := len(ms)
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlitestore: %w", err)
	}
	defer conn.Close()
	// BEGIN IMMEDIATE: two processes opening a new file migrate in turn.
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlitestore: %w", err)
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("sqlitestore: reading the schema version: %w", err)
	}
	if version > latest {
		return fmt.Errorf("%w: schema version %d, this program knows up to %d", ErrSchemaTooNew, version, latest)
	}
	for _, m := range ms[version:] {
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fmt.Errorf("sqlitestore: migration %s: %w", m.Name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", latest)); err != nil {
		return fmt.Errorf("sqlitestore: %w", err)
	}
	return tx.Commit()
}

// Sweep deletes ledger records older than Options.Retention, expired
// cache entries and expired login sessions (expired tickets go as new
// ones are created). The
// background sweep calls it every Options.SweepInterval.
func (s *Store) Sweep(ctx context.Context) error {
	now := s.now()
	var errs []error
	if s.opts.Retention > 0 {
		errs = append(errs, s.ledger.sweep(ctx, now.Add(-s.opts.Retention)))
	}
	errs = append(errs, s.kv.Sweep(ctx, now)...)
	return errors.Join(errs...)
}
