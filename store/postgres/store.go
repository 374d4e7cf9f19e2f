package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
	"github.com/agentadapter/agentadapter/store/internal/migrations"
	"github.com/agentadapter/agentadapter/store/internal/sqlkv"
	"github.com/agentadapter/agentadapter/store/internal/ticketwait"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// ErrSchemaTooNew is returned by [Open] for a database whose schema was
// written by a newer version of this package.
var ErrSchemaTooNew = errors.New("pgstore: database schema is newer than this program")

// ErrClosed is returned by operations on a closed [Store].
var ErrClosed = errors.New("pgstore: store closed")

// Defaults for [Options].
const (
	DefaultLedgerBuffer = 16384
	DefaultBatchSize    = 1024
	DefaultPollInterval = time.Second
)

// notifyChannel is the LISTEN/NOTIFY channel of ticket decisions.
const notifyChannel = "agentadapter_tickets"

// Options configure a [Store]. The zero value is the documented default
// of every field.
type Options struct {
	// Durable makes the ledger synchronous: the executor writes each
	// record on the call's path and the call returns once it is committed
	// ([ledger.Durable]); concurrent calls share commits. The
	// default writes records in batches from a background goroutine: a
	// slow database never stalls a call, and records the buffer cannot
	// take are refused (the executor counts them as failed).
	Durable bool
	// Retention is how long ledger records are kept; a background sweep
	// deletes older ones (moving the chain's anchor past them). Zero keeps
	// every record.
	Retention time.Duration
	// SweepInterval is how often the sweep runs (it also drops expired
	// cache entries and login sessions); zero means a minute.
	SweepInterval time.Duration
	// LedgerBuffer bounds the records waiting for a batch; zero means
	// DefaultLedgerBuffer.
	LedgerBuffer int
	// BatchSize bounds the records committed in one transaction; zero
	// means DefaultBatchSize.
	BatchSize int
	// PollInterval is how often [Tickets.Wait] re-reads a ticket in case a
	// notification was lost (a dropped connection); decisions are
	// otherwise delivered by LISTEN/NOTIFY at once. Zero means
	// DefaultPollInterval.
	PollInterval time.Duration
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

// Store is a PostgreSQL database holding the state of executors and MCP
// managers, shared by every replica that opens it. It is safe for
// concurrent use.
type Store struct {
	pool   *pgxpool.Pool
	dsn    string
	opts   Options
	logger *slog.Logger
	wake   *ticketwait.Waker

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

// Open connects to the database named by dsn (a PostgreSQL URL or
// key=value string, as pgx reads it; pool_max_conns and search_path are
// honoured), brings its schema up to date, and starts the background
// ledger writer, sweep and notification listener. It fails with
// [ErrSchemaTooNew] for a database written by a newer version.
func Open(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	s := &Store{dsn: dsn}
	if opts != nil {
		s.opts = *opts
	}
	o := &s.opts
	if err := o.Tokens.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", "pgstore", err)
	}
	if o.LedgerBuffer <= 0 {
		o.LedgerBuffer = DefaultLedgerBuffer
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
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
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	s.pool = pool
	s.kv = sqlkv.New(pgDB{pool}, sqlkv.Dialect{Name: "pgstore", Numbered: true, NoRows: pgx.ErrNoRows, Collate: ` COLLATE "C"`,
		ErrSessionTooLarge: ErrSessionTooLarge, Now: s.now, Logger: s.logger, TokenKeys: o.Tokens.Keys})
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	s.wake = ticketwait.NewWaker()
	s.ledger = newLedger(s)
	s.tickets = &Tickets{s: s, t: s.kv.Tickets()}
	s.cache = &Cache{t: s.kv.Cache()}
	s.pins = &Pins{t: s.kv.Pins()}
	s.tokens = &Tokens{t: s.kv.Tokens()}
	bg, stop := context.WithCancel(context.Background())
	s.stop = stop
	s.wg.Go(func() { s.kv.SweepEvery(bg, s.opts.SweepInterval, s.Sweep) })
	s.wg.Go(func() { s.listen(bg, cfg.ConnConfig) })
	return s, nil
}

// Close flushes the ledger, stops the background work and closes the
// connections.
func (s *Store) Close() error {
	s.once.Do(func() {
		s.ledger.close()
		s.stop()
		s.wg.Wait()
		s.pool.Close()
	})
	return nil
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

// migrationLock is the advisory lock key replicas opening one database
// migrate under, one at a time.
const migrationLock = 0x61676e7473746f72 // "agntstor"

// migrate applies the embedded migrations the database lacks, in one
// transaction holding an advisory lock, and records the version.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms := migrations.Load(migrationFiles)
	latest := len(ms)
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLock)); err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	if _, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS agentadapter_schema (id int PRIMARY KEY CHECK (id = 1), version int NOT NULL)"); err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	var version int
	err = tx.QueryRow(ctx, "SELECT version FROM agentadapter_schema WHERE id = 1").Scan(&version)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("pgstore: reading the schema version: %w", err)
	}
	if version > latest {
		return fmt.Errorf("%w: schema version %d, this program knows up to %d", ErrSchemaTooNew, version, latest)
	}
	for _, m := range ms[version:] {
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return fmt.Errorf("pgstore: migration %s: %w", m.Name, err)
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO agentadapter_schema VALUES (1, $1)
		ON CONFLICT (id) DO UPDATE SET version = excluded.version`, latest); err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	return tx.Commit(ctx)
}

// listen delivers ticket notifications to the waiters of this Store, over
// a connection of its own, reconnecting after a failure (waiters poll
// meanwhile).
func (s *Store) listen(ctx context.Context, cfg *pgx.ConnConfig) {
	for ctx.Err() == nil {
		err := s.listenOnce(ctx, cfg)
		if ctx.Err() != nil {
			return
		}
		s.logger.Warn("pgstore: notification listener lost its connection; reconnecting", "error", err)
		s.wake.Notify() // decisions may have been missed: let waiters look
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
	}
}

func (s *Store) listenOnce(ctx context.Context, cfg *pgx.ConnConfig) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return err
	}
	s.wake.Notify()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		s.wake.Notify()
	}
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
