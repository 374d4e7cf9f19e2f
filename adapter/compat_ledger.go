package adapter

import (
	"io"
	"iter"

	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// The ledger moved to [ledger] (issue #26). These names keep the old
// ones working for one minor release; go fix -inline rewrites their uses.

// Record is the old name of [ledger.Record].
//
// Deprecated: use [ledger.Record]; go fix -inline rewrites it.
//
//go:fix inline
type Record = ledger.Record

// OutcomeOK is the old name of [ledger.OutcomeOK].
//
// Deprecated: use [ledger.OutcomeOK]; go fix -inline rewrites it.
//
//go:fix inline
const OutcomeOK = ledger.OutcomeOK

// Ledger is the old name of [ledger.Ledger].
//
// Deprecated: use [ledger.Ledger]; go fix -inline rewrites it.
//
//go:fix inline
type Ledger = ledger.Ledger

// MemoryLedger is the old name of [ledger.Memory].
//
// Deprecated: use [ledger.Memory]; go fix -inline rewrites it.
//
//go:fix inline
type MemoryLedger = ledger.Memory

// NewMemoryLedger is the old name of [ledger.NewMemory].
//
// Deprecated: use [ledger.NewMemory]; go fix -inline rewrites it.
//
//go:fix inline
func NewMemoryLedger(capacity int) *ledger.Memory { return ledger.NewMemory(capacity) }

// JSONLLedger is the old name of [ledger.JSONL].
//
// Deprecated: use [ledger.JSONL]; go fix -inline rewrites it.
//
//go:fix inline
type JSONLLedger = ledger.JSONL

// NewJSONLLedger is the old name of [ledger.NewJSONL].
//
// Deprecated: use [ledger.NewJSONL]; go fix -inline rewrites it.
//
//go:fix inline
func NewJSONLLedger(w io.Writer) *ledger.JSONL { return ledger.NewJSONL(w) }

// OpenJSONLLedger is the old name of [ledger.OpenJSONL].
//
// Deprecated: use [ledger.OpenJSONL]; go fix -inline rewrites it.
//
//go:fix inline
func OpenJSONLLedger(path string) (*ledger.JSONL, error) { return ledger.OpenJSONL(path) }

// HeadVerifier is the old name of [ledger.HeadVerifier].
//
// Deprecated: use [ledger.HeadVerifier]; go fix -inline rewrites it.
//
//go:fix inline
type HeadVerifier = ledger.HeadVerifier

// ChainHead is the old name of [ledger.Head].
//
// Deprecated: use [ledger.Head]; go fix -inline rewrites it.
//
//go:fix inline
type ChainHead = ledger.Head

// ParseChainHead is the old name of [ledger.ParseHead].
//
// Deprecated: use [ledger.ParseHead]; go fix -inline rewrites it.
//
//go:fix inline
func ParseChainHead(s string) (ledger.Head, error) { return ledger.ParseHead(s) }

// ErrHeadSyntax is the old name of [ledger.ErrHeadSyntax].
//
// Deprecated: use [ledger.ErrHeadSyntax].
var ErrHeadSyntax = ledger.ErrHeadSyntax

// ChainProblem is the old name of [ledger.Problem].
//
// Deprecated: use [ledger.Problem]; go fix -inline rewrites it.
//
//go:fix inline
type ChainProblem = ledger.Problem

// ChainEdited is the old name of [ledger.Edited].
//
// Deprecated: use [ledger.Edited]; go fix -inline rewrites it.
//
//go:fix inline
const ChainEdited = ledger.Edited

// ChainInserted is the old name of [ledger.Inserted].
//
// Deprecated: use [ledger.Inserted]; go fix -inline rewrites it.
//
//go:fix inline
const ChainInserted = ledger.Inserted

// ChainDeleted is the old name of [ledger.Deleted].
//
// Deprecated: use [ledger.Deleted]; go fix -inline rewrites it.
//
//go:fix inline
const ChainDeleted = ledger.Deleted

// ChainReplaced is the old name of [ledger.Replaced].
//
// Deprecated: use [ledger.Replaced]; go fix -inline rewrites it.
//
//go:fix inline
const ChainReplaced = ledger.Replaced

// VerifyChainHead is the old name of [ledger.VerifyHead].
//
// Deprecated: use [ledger.VerifyHead]; go fix -inline rewrites it.
//
//go:fix inline
func VerifyChainHead(records iter.Seq2[ledger.Record, error], from, kept ledger.Head) (ledger.Head, error) {
	return ledger.VerifyHead(records, from, kept)
}

// VerifyLedgerJSONL is the old name of [ledger.VerifyJSONL].
//
// Deprecated: use [ledger.VerifyJSONL]; go fix -inline rewrites it.
//
//go:fix inline
func VerifyLedgerJSONL(r io.Reader, kept ledger.Head) (ledger.Head, error) {
	return ledger.VerifyJSONL(r, kept)
}

// VerifyLedger is the old name of [ledger.VerifyBetween].
//
// Deprecated: use [ledger.VerifyBetween]; go fix -inline rewrites it.
//
//go:fix inline
func VerifyLedger(records iter.Seq2[ledger.Record, error], anchor, head, kept ledger.Head) error {
	return ledger.VerifyBetween(records, anchor, head, kept)
}

// LedgerQuery is the old name of [ledger.Query].
//
// Deprecated: use [ledger.Query]; go fix -inline rewrites it.
//
//go:fix inline
type LedgerQuery = ledger.Query

// LedgerReader is the old name of [ledger.Reader].
//
// Deprecated: use [ledger.Reader]; go fix -inline rewrites it.
//
//go:fix inline
type LedgerReader = ledger.Reader

// DurableLedger is the old name of [ledger.Durable].
//
// Deprecated: use [ledger.Durable]; go fix -inline rewrites it.
//
//go:fix inline
type DurableLedger = ledger.Durable

// LedgerVerifier is the old name of [ledger.Verifier].
//
// Deprecated: use [ledger.Verifier]; go fix -inline rewrites it.
//
//go:fix inline
type LedgerVerifier = ledger.Verifier

// ErrChainBroken is the old name of [ledger.ErrChainBroken].
//
// Deprecated: use [ledger.ErrChainBroken].
var ErrChainBroken = ledger.ErrChainBroken

// ChainError is the old name of [ledger.ChainError].
//
// Deprecated: use [ledger.ChainError]; go fix -inline rewrites it.
//
//go:fix inline
type ChainError = ledger.ChainError

// ChainHash is the old name of [ledger.Hash].
//
// Deprecated: use [ledger.Hash]; go fix -inline rewrites it.
//
//go:fix inline
func ChainHash(r *ledger.Record) string { return ledger.Hash(r) }

// VerifyChain is the old name of [ledger.Verify].
//
// Deprecated: use [ledger.Verify]; go fix -inline rewrites it.
//
//go:fix inline
func VerifyChain(records iter.Seq2[ledger.Record, error], from ledger.Head) (ledger.Head, error) {
	return ledger.Verify(records, from)
}

// CheckHead is the old name of [ledger.CheckHead].
//
// Deprecated: use [ledger.CheckHead]; go fix -inline rewrites it.
//
//go:fix inline
func CheckHead(last, head ledger.Head) error { return ledger.CheckHead(last, head) }

// WriteLedgerJSONL is the old name of [ledger.WriteJSONL].
//
// Deprecated: use [ledger.WriteJSONL]; go fix -inline rewrites it.
//
//go:fix inline
func WriteLedgerJSONL(w io.Writer, records iter.Seq2[ledger.Record, error]) error {
	return ledger.WriteJSONL(w, records)
}

// ReadLedgerJSONL is the old name of [ledger.ReadJSONL].
//
// Deprecated: use [ledger.ReadJSONL]; go fix -inline rewrites it.
//
//go:fix inline
func ReadLedgerJSONL(r io.Reader) iter.Seq2[ledger.Record, error] { return ledger.ReadJSONL(r) }

// MaxLedgerLine is the old name of [ledger.MaxLine].
//
// Deprecated: use [ledger.MaxLine]; go fix -inline rewrites it.
//
//go:fix inline
const MaxLedgerLine = ledger.MaxLine
