package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // to tamper with the store behind the command's back
	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/ncruces/go-sqlite3/driver" // to tamper with the store behind the command's back

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/internal/pgtest"
)

// queriedRecords reads ledger query --json.
func queriedRecords(t *testing.T, r result) []ledger.Record {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("ledger query: exit %d %s", r.code, r.stderr)
	}
	var recs []ledger.Record
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec ledger.Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("ledger line %q: %v", sc.Text(), err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// ledgerEnv is a gateway config with a SQLite store in a fresh directory.
func ledgerEnv(t *testing.T) (dir, db string, aa func(args ...string) result) {
	dir = t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "sqlite:${STATE}/state.db"}}`, testServer))
	env := []string{"STATE=" + dir + "/state"}
	return dir, filepath.Join(dir, "state", "state.db"), func(args ...string) result {
		return runBin(t, dir, env, append([]string{"--config", "gateway.json"}, args...)...)
	}
}

// ledger head prints a head to keep; ledger verify --head catches what the
// chain alone cannot (a cut tail with the head moved back, a wiped and
// reset ledger); ledger verify FILE checks an export offline; --json.
func TestLedgerHeadVerify(t *testing.T) {
	dir, dbPath, aa := ledgerEnv(t)
	for i := range 4 {
		aa("call", "add_note", fmt.Sprintf(`{"text": "note %d"}`, i)) // held for approval: a record each
	}
	r := aa("ledger", "head")
	kept, err := ledger.ParseHead(r.stdout)
	if r.code != 0 || err != nil || kept.Seq < 4 || r.stdout != kept.String()+"\n" {
		t.Fatalf("ledger head: exit %d %q %q (%v); want SEQ:HASH on one line, SEQ >= 4", r.code, r.stdout, r.stderr, err)
	}
	r = aa("ledger", "head", "--json")
	var hj struct {
		Seq  int64
		Hash string
		At   string
	}
	if err := json.Unmarshal([]byte(r.stdout), &hj); r.code != 0 || err != nil || hj.Seq != kept.Seq || hj.Hash != kept.Hash || hj.At == "" {
		t.Errorf("ledger head --json: exit %d %q (%v)", r.code, r.stdout, err)
	}
	headFile := writeFile(t, dir, "head.json", r.stdout)

	for _, h := range []string{kept.String(), "@" + headFile} {
		if r := aa("ledger", "verify", "--head", h); r.code != 0 || !strings.Contains(r.stdout, "holds the kept head "+kept.String()) {
			t.Errorf("verify --head %s: exit %d %q %q", h, r.code, r.stdout, r.stderr)
		}
	}
	r = aa("ledger", "verify", "--json")
	var vj verifyOutput
	if err := json.Unmarshal([]byte(r.stdout), &vj); r.code != 0 || err != nil || !vj.Verified {
		t.Errorf("verify --json: exit %d %q (%v)", r.code, r.stdout, err)
	}
	for _, bad := range []string{"4", "4:nothex", "-1:" + kept.Hash, "@" + filepath.Join(dir, "nosuch")} {
		if r := aa("ledger", "verify", "--head", bad); r.code != exitUsage || len(r.stderr) > 300 {
			t.Errorf("verify --head %q: exit %d %q; want %d, one short line", bad, r.code, r.stderr, exitUsage)
		}
	}

	// An export verifies offline, with or without the head; an edited one
	// fails naming the record.
	export := filepath.Join(dir, "export.jsonl")
	if r := aa("ledger", "export", "-o", export); r.code != 0 {
		t.Fatalf("export: exit %d %s", r.code, r.stderr)
	}
	offline := func(args ...string) result {
		return runBin(t, dir, nil, append([]string{"ledger", "verify"}, args...)...)
	}
	if r := offline(export, "--head", kept.String()); r.code != 0 || !strings.Contains(r.stdout, "its last record: "+kept.String()) {
		t.Errorf("verify FILE --head: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `"note 1"`) })
	if at < 0 {
		t.Fatalf("the export has no record of note 1:\n%s", b)
	}
	seq := int64(at + 1) // the export starts at record 1
	lines[at] = strings.Replace(lines[at], `"note 1"`, `"note X"`, 1)
	edited := writeFile(t, dir, "edited.jsonl", strings.Join(lines, ""))
	if r := offline(edited); r.code != exitFailure || !strings.Contains(r.stderr, fmt.Sprintf("record %d ", seq)) || !strings.Contains(r.stderr, "edited") {
		t.Errorf("verify an edited export: exit %d %q %q; want record %d edited", r.code, r.stdout, r.stderr, seq)
	}
	r = offline(edited, "--json")
	if err := json.Unmarshal([]byte(r.stdout), &vj); r.code != exitFailure || err != nil || vj.Verified || vj.Seq != seq || vj.Problem != "edited" {
		t.Errorf("verify --json an edited export: exit %d %q (%v)", r.code, r.stdout, err)
	}
	cut := writeFile(t, dir, "cut.jsonl", strings.Join(lines[:2], ""))
	if r := offline(cut, "--head", kept.String()); r.code != exitFailure || !strings.Contains(r.stderr, "record 3 deleted") {
		t.Errorf("verify a cut export --head: exit %d %q", r.code, r.stderr)
	}

	// Behind the command's back: cut the tail and move the head back.
	db, err := sql.Open("sqlite3", "file:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{`DELETE FROM ledger WHERE seq > 2`,
		`UPDATE ledger_chain SET head_seq = 2, head_hash = (SELECT hash FROM ledger WHERE seq = 2)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if r := aa("ledger", "verify"); r.code != 0 {
		t.Fatalf("the chain alone was expected to hide a cut tail: exit %d %s", r.code, r.stderr)
	}
	if r := aa("ledger", "verify", "--head", kept.String()); r.code != exitFailure || !strings.Contains(r.stderr, "record 3 deleted") || !strings.Contains(r.stderr, kept.String()) {
		t.Errorf("verify --head after a cut tail: exit %d %q; want record 3 deleted, naming the kept head", r.code, r.stderr)
	}
	// Wiped and reset, then refilled past the kept head.
	for _, q := range []string{`DELETE FROM ledger`, `UPDATE ledger_chain SET head_seq = 0, head_hash = '', anchor_seq = 0, anchor_hash = ''`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if r := aa("ledger", "verify", "--head", "@"+headFile); r.code != exitFailure || !strings.Contains(r.stderr, "record 1 deleted") {
		t.Errorf("verify --head after a reset: exit %d %q; want record 1 deleted", r.code, r.stderr)
	}
	for i := range 5 {
		aa("call", "add_note", fmt.Sprintf(`{"text": "again %d"}`, i))
	}
	if r := aa("ledger", "verify"); r.code != 0 {
		t.Fatalf("the refilled chain was expected to verify alone: exit %d %s", r.code, r.stderr)
	}
	r = aa("ledger", "verify", "--head", kept.String(), "--json")
	if err := json.Unmarshal([]byte(r.stdout), &vj); r.code != exitFailure || err != nil || vj.Seq != kept.Seq || vj.Problem != string(ledger.Replaced) || vj.Kept == nil || *vj.Kept != kept {
		t.Errorf("verify --head --json after a reset and refill: exit %d %q (%v); want record 4 replaced", r.code, r.stdout, err)
	}
}

// approvals approve and deny write a decision record, as the console
// does, and a made-up tool name through call leaves exactly one record.
func TestCLIDecisionAndUnknownRecords(t *testing.T) {
	_, _, aa := ledgerEnv(t)
	var tickets []string
	for _, text := range []string{"approve me", "deny me", "edit me"} {
		r := aa("call", "add_note", fmt.Sprintf(`{"text": %q}`, text))
		m := ticketRE.FindStringSubmatch(r.stderr)
		if r.code != exitPending || m == nil {
			t.Fatalf("exit %d, want %d with a ticket\n%s%s", r.code, exitPending, r.stdout, r.stderr)
		}
		tickets = append(tickets, m[1])
	}
	for _, cmd := range [][]string{
		{"approvals", "approve", tickets[0], "--as", "ops"},
		{"approvals", "deny", tickets[1], "--as", "ops", "--reason", "not today"},
		{"approvals", "approve", tickets[2], "--as", "ops", "--args", `{"text": "edited", "token": "s3cret"}`},
	} {
		if r := aa(cmd...); r.code != 0 {
			t.Fatalf("%v: exit %d %s", cmd, r.code, r.stderr)
		}
	}
	recs := queriedRecords(t, aa("ledger", "query", "--json", "--outcome", "decision"))
	type dec struct{ ticket, approval, approver, source, tool, message string }
	var got []dec
	for _, r := range recs {
		got = append(got, dec{r.Ticket, r.Approval, r.Approver, r.Source, r.Tool, r.Message})
		if strings.Contains(string(r.Args), "s3cret") {
			t.Errorf("the edited arguments were recorded unredacted: %s", r.Args)
		}
	}
	want := []dec{
		{tickets[0], "approved", "ops", "cli", "add_note", ""},
		{tickets[1], "denied", "ops", "cli", "add_note", "not today"},
		{tickets[2], "approved", "ops", "cli", "add_note", ""},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("decision records:\n got %v\nwant %v", got, want)
	}
	if len(recs) == 3 && !strings.Contains(string(recs[2].Args), "edited") {
		t.Errorf("the edited approval's record lacks the arguments: %s", recs[2].Args)
	}

	long := strings.Repeat("made_up_", 1000)
	for _, name := range []string{"made_up", long} {
		if r := aa("call", name, `{"token": "s3cret"}`); r.code != exitUsage || !strings.Contains(r.stderr, "no tool") {
			t.Errorf("call %.20s: exit %d %q", name, r.code, r.stderr)
		}
	}
	recs = queriedRecords(t, aa("ledger", "query", "--json", "--outcome", "not_found"))
	if len(recs) != 2 || recs[0].Tool != "made_up" || recs[0].Integration != "cli" || recs[0].Subject != "cli" {
		t.Fatalf("not_found records: %+v; want one per made-up name", recs)
	}
	if len(recs[1].Tool) > 200 || strings.Contains(string(recs[0].Args), "s3cret") {
		t.Errorf("the made-up names' records: tool %d bytes, args %s; want bounded and redacted", len(recs[1].Tool), recs[0].Args)
	}
}

// Over MCP, a made-up tool name is a not_found tool error the model reads
// (not go-sdk's protocol error) and leaves exactly one record.
func TestServeUnknownToolRecorded(t *testing.T) {
	dir, _, aa := ledgerEnv(t)
	s := startServe(t, dir, []string{"STATE=" + dir + "/state"}, "--config", "gateway.json")
	cs := connect(t, s.base+"/mcp", nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "made_up", Arguments: map[string]any{"token": "s3cret"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), `"kind":"not_found"`) {
		t.Fatalf("CallTool(made_up) = %+v, %v; want a not_found isError result", res, err)
	}
	s.stop(t)
	recs := queriedRecords(t, aa("ledger", "query", "--json", "--outcome", "not_found"))
	if len(recs) != 1 || recs[0].Tool != "made_up" || recs[0].Integration != "mcp" || strings.Contains(string(recs[0].Args), "s3cret") {
		t.Errorf("not_found records: %+v; want exactly one, of the mcp integration, redacted", recs)
	}
}

// ledger head and ledger verify --head on a PostgreSQL store: a cut tail
// with the head moved back passes the chain alone and fails the kept head.
func TestLedgerHeadPostgres(t *testing.T) {
	c, err := pgtest.Start()
	if errors.Is(err, pgtest.ErrNoPostgres) {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": %q}}`, testServer, c.DSN))
	env := []string{"XDG_STATE_HOME=" + dir}
	aa := func(args ...string) result {
		return runBin(t, dir, env, append([]string{"--config", "gateway.json"}, args...)...)
	}
	for i := range 3 {
		aa("call", "add_note", fmt.Sprintf(`{"text": "pg %d"}`, i))
	}
	r := aa("ledger", "head")
	kept, err := ledger.ParseHead(r.stdout)
	if r.code != 0 || err != nil || kept.Seq < 3 {
		t.Fatalf("ledger head: exit %d %q %q (%v)", r.code, r.stdout, r.stderr, err)
	}
	if r := aa("ledger", "verify", "--head", kept.String()); r.code != 0 {
		t.Fatalf("verify --head: exit %d %s", r.code, r.stderr)
	}
	db, err := sql.Open("pgx", c.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cut := kept.Seq - 2
	for _, q := range []string{`DELETE FROM ledger WHERE seq > $1`, `UPDATE ledger_chain SET head_seq = $1, head_hash = (SELECT hash FROM ledger WHERE seq = $1)`} {
		if _, err := db.Exec(q, cut); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if r := aa("ledger", "verify"); r.code != 0 {
		t.Fatalf("the chain alone was expected to hide a cut tail: exit %d %s", r.code, r.stderr)
	}
	if r := aa("ledger", "verify", "--head", kept.String()); r.code != exitFailure || !strings.Contains(r.stderr, fmt.Sprintf("record %d deleted", cut+1)) {
		t.Errorf("verify --head after a cut tail: exit %d %q; want record %d deleted", r.code, r.stderr, cut+1)
	}
}

// A model's made-up tool name reaches the ledger as it was; ledger query
// and tail print it escaped, in the table and in --json.
func TestLedgerQueryHostileText(t *testing.T) {
	_, _, aa := ledgerEnv(t)
	hostile := "evil\x1b]0;pwned\x07\x1b[2J\u009b31m\u202eusers\rok"
	if r := aa("call", hostile, `{"note": "\u009b\u202e"}`); r.code != exitUsage {
		t.Fatalf("call: exit %d %q", r.code, r.stderr)
	}
	for _, args := range [][]string{{"ledger", "query"}, {"ledger", "query", "--json"}, {"ledger", "tail"}, {"ledger", "tail", "--json"}, {"ledger", "export"}} {
		r := aa(args...)
		if r.code != 0 || !strings.Contains(r.stdout, "evil") {
			t.Fatalf("%v: exit %d %q %q", args, r.code, r.stdout, r.stderr)
		}
		if i := strings.IndexAny(r.stdout, "\x1b\x07\r\u009b\u202e"); i >= 0 {
			t.Errorf("%v printed a raw control or bidi rune at byte %d: %q", args, i, r.stdout)
		}
	}
	// The escaped export still verifies: the escapes decode to the same record.
	r := aa("ledger", "export")
	if _, err := ledger.VerifyJSONL(strings.NewReader(r.stdout), ledger.Head{}); err != nil {
		t.Errorf("the export does not verify: %v", err)
	}
}
