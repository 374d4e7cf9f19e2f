//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agentadapter/agentadapter/adapter"
	approval0 "github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/canonical"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
	"github.com/agentadapter/agentadapter/internal/pgtest"
)

// childEnv carries a child process's childSpec (JSON): the test binary
// re-executed runs the program instead of the tests.
const childEnv = "DURABLE_TEST_CHILD"

type childSpec struct {
	// Args is the program's command line.
	Args []string
	// DieAfter, if set, is a prefix of the program's output lines: the
	// child kills itself with SIGKILL as soon as it wrote such a line.
	DieAfter string
}

// dyingWriter is the output of a child with a DieAfter.
type dyingWriter struct {
	w      io.Writer
	prefix []byte
}

func (d dyingWriter) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	if bytes.HasPrefix(p, d.prefix) {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // SIGKILL cannot be caught: nothing runs after it
	}
	return n, err
}

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		// The test holds the child's stdin open: if the test process dies
		// without reaping it (a timeout's panic), the child ends too.
		go func() {
			io.Copy(io.Discard, os.Stdin)
			os.Exit(3)
		}()
		var spec childSpec
		if err := json.Unmarshal([]byte(v), &spec); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(2)
		}
		var out io.Writer = os.Stdout
		if spec.DieAfter != "" {
			out = dyingWriter{os.Stdout, []byte(spec.DieAfter)}
		}
		if err := cli(context.Background(), spec.Args, out); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	c, err := pgtest.Start()
	if err != nil {
		// Under CI a missing PostgreSQL fails; elsewhere its test skips.
		if os.Getenv("CI") != "" || !errors.Is(err, pgtest.ErrNoPostgres) {
			fmt.Fprintln(os.Stderr, "the durable example's tests need PostgreSQL:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "durable: skipping the PostgreSQL test:", err)
	} else {
		clusterDSN = c.DSN
	}
	code := m.Run()
	if c != nil {
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// clusterDSN is the throwaway PostgreSQL cluster's; empty when there is
// none (never under CI).
var clusterDSN string

var schemas atomic.Int64

// postgresDSN returns the DSN of an empty schema of the cluster.
func postgresDSN(t *testing.T) string {
	if clusterDSN == "" {
		t.Skip("no PostgreSQL")
	}
	name := fmt.Sprintf("durable_%d_%d", os.Getpid(), schemas.Add(1))
	conn, err := pgx.Connect(context.Background(), clusterDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(clusterDSN, "?") {
		sep = "&"
	}
	return clusterDSN + sep + "search_path=" + url.QueryEscape(name)
}

// child is the program running in another process.
type child struct {
	t      *testing.T
	cmd    *exec.Cmd
	lines  chan string // stdout, closed at EOF
	stderr bytes.Buffer
	seen   []string
	once   sync.Once
	err    error
}

func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	return startSpec(t, childSpec{Args: args})
}

func startSpec(t *testing.T, spec childSpec) *child {
	t.Helper()
	b, _ := json.Marshal(spec)
	c := &child{t: t, cmd: exec.Command(os.Args[0], "-test.run=^$"), lines: make(chan string)}
	c.cmd.Env = append(os.Environ(), childEnv+"="+string(b))
	c.cmd.Stderr = &c.stderr
	if _, err := c.cmd.StdinPipe(); err != nil { // see TestMain
		t.Fatal(err)
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	// Whatever happens to the test, the child ends.
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		c.wait()
	})
	return c
}

// until reads stdout up to a line starting with prefix; the child ending
// first fails the test.
func (c *child) until(prefix string) {
	c.t.Helper()
	for line := range c.lines {
		c.seen = append(c.seen, line)
		if strings.HasPrefix(line, prefix) {
			return
		}
	}
	c.wait()
	c.t.Fatalf("child ended (%v) before printing %q:\n%s\nstderr:\n%s", c.err, prefix, c.output(), c.stderr.String())
}

// wait reads the rest of stdout and reaps the child.
func (c *child) wait() error {
	c.once.Do(func() {
		for line := range c.lines {
			c.seen = append(c.seen, line)
		}
		c.err = c.cmd.Wait()
	})
	return c.err
}

// finish waits for the child to exit and fails the test unless it
// succeeded.
func (c *child) finish() {
	c.t.Helper()
	if err := c.wait(); err != nil {
		c.t.Fatalf("child: %v\n%s\nstderr:\n%s", err, c.output(), c.stderr.String())
	}
}

// killed waits for the child and fails the test unless SIGKILL ended it.
func (c *child) killed() {
	c.t.Helper()
	c.wait()
	if ws, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		c.t.Fatalf("child ended with %v, want killed by SIGKILL:\n%s\nstderr:\n%s", c.cmd.ProcessState, c.output(), c.stderr.String())
	}
}

func (c *child) output() string { return strings.Join(c.seen, "\n") }

// line returns the one line of the output starting with prefix.
func (c *child) line(prefix string) string {
	c.t.Helper()
	var found []string
	for _, l := range c.seen {
		if strings.HasPrefix(l, prefix) {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		c.t.Fatalf("%d lines starting %q, want 1:\n%s", len(found), prefix, c.output())
	}
	return found[0]
}

// answer returns an agent's one answer line.
func (c *child) answer(agent string) string {
	c.t.Helper()
	var found []string
	for _, l := range c.seen {
		if strings.HasPrefix(l, agent+": run ") && strings.Contains(l, " answer: ") {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		c.t.Fatalf("%s: %d answers, want 1:\n%s", agent, len(found), c.output())
	}
	return found[0]
}

// pausedTicket returns the ticket of an agent's last paused line.
func (c *child) pausedTicket(agent string) string {
	c.t.Helper()
	var tickets []string
	for _, l := range c.seen {
		if strings.HasPrefix(l, agent+": run ") && strings.Contains(l, " paused: transfer ") {
			f := strings.Fields(l)
			tickets = append(tickets, f[len(f)-1])
		}
	}
	if len(tickets) == 0 {
		c.t.Fatalf("%s: no paused line:\n%s", agent, c.output())
	}
	return tickets[len(tickets)-1]
}

// TestCrash kills the program with SIGKILL while its Eino and Genkit runs
// wait for approval, and checks what a restart finds and does: the tickets
// are still pending, the durable ledger holds every call that returned
// and the pins are kept; once approved, a new process resumes the Eino run
// from its checkpoint and restarts the Genkit call, each transfer runs
// exactly once with the approved arguments. Another user's process
// presenting the tickets is denied, and replaying the runs' saved state
// after they finished asks for approval again instead of paying twice.
func TestCrash(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testCrash(t, "") })
	t.Run("postgres", func(t *testing.T) { testCrash(t, postgresDSN(t)) })
}

// testCrash runs the story on the store dsn names (the program's -db
// flag; empty means DIR/state.db).
func testCrash(t *testing.T, dsn string) {
	ctx := context.Background()
	dir := t.TempDir()
	run := func(flags ...string) []string {
		args := append([]string{"run"}, flags...)
		if dsn != "" {
			args = append(args, "-db", dsn)
		}
		return append(args, dir)
	}
	agents := []string{"eino", "genkit"}
	wantArgs := map[string]string{"eino": `{"amount":100,"to":"bob"}`, "genkit": `{"amount":250,"to":"carol"}`}
	wantResult := map[string]string{"eino": "sent 100 to bob", "genkit": "sent 250 to carol"}

	// 1. Both runs call lookup, then pause on transfer; the process waits
	// for the decisions and is killed doing so.
	first := startChild(t, run()...)
	first.until("waiting for approvals")
	tickets := map[string]string{}
	for _, ag := range agents {
		first.line(ag + ": model reads lookup: ")
		tickets[ag] = first.pausedTicket(ag)
	}
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.killed()

	// 2. What the crash left, read through the store's API.
	st := openTestState(t, dir, dsn)
	for _, ag := range agents {
		tk := ticket(t, st, tickets[ag])
		if tk.State != approval0.TicketPending || tk.Tool != "transfer" || tk.Subject != defaultSubject || string(tk.Args) != wantArgs[ag] {
			t.Errorf("%s ticket after the crash: %s %s %s by %q, want pending transfer %s by %s",
				ag, tk.State, tk.Tool, tk.Args, tk.Subject, wantArgs[ag], defaultSubject)
		}
	}
	recs := records(t, st)
	if got, want := summary(recs), []string{"lookup ok", "transfer approval_pending", "lookup ok", "transfer approval_pending"}; !equal(got, want) {
		t.Fatalf("ledger after the crash: %v, want %v", got, want)
	}
	if recs[1].Ticket != tickets["eino"] || recs[3].Ticket != tickets["genkit"] {
		t.Errorf("pending records name tickets %s, %s; want %s, %s", recs[1].Ticket, recs[3].Ticket, tickets["eino"], tickets["genkit"])
	}
	if err := st.ledger.Verify(ctx); err != nil {
		t.Errorf("Verify after the crash: %v", err)
	}
	pin := pins(t, st)
	if _, err := os.Stat(filepath.Join(dir, "payments.log")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("payments before any approval: %v", err)
	}

	// The paused runs' state as it is now: an attacker's copy, replayed
	// below.
	saved := filepath.Join(t.TempDir(), "runs")
	copyDir(t, filepath.Join(dir, "runs"), saved)

	// 3. An operator approves, through the store (no process of the
	// program is running).
	approvals := &approval0.Deferred{Store: st.tickets}
	for _, ag := range agents {
		if err := approvals.Approve(ctx, tickets[ag], operator); err != nil {
			t.Fatal(err)
		}
	}

	// 4. Another user runs the program on the same state: the resumed
	// calls present alice's tickets and are denied; nothing is paid and
	// the tickets stay approved.
	mallory := startChild(t, run("-subject", "mallory")...)
	mallory.finish()
	for _, ag := range agents {
		if l := mallory.answer(ag); !strings.Contains(l, string(adapter.KindApprovalDenied)) {
			t.Errorf("%s run resumed by mallory: %q, want an answer reading approval_denied", ag, l)
		}
		if tk := ticket(t, st, tickets[ag]); tk.State != approval0.TicketApproved {
			t.Errorf("%s ticket after mallory's attempt: %s, want approved", ag, tk.State)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "payments.log")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("mallory's process paid: %v", err)
	}

	// 5. Alice's program restarts on the state the crash left: the Eino
	// run resumes from its checkpoint, the Genkit call is restarted, each
	// transfer runs once with the approved arguments, and the model's
	// answer carries its result.
	os.RemoveAll(filepath.Join(dir, "runs"))
	copyDir(t, saved, filepath.Join(dir, "runs"))
	second := startChild(t, run()...)
	second.finish()
	for _, ag := range agents {
		if l := second.answer(ag); !strings.Contains(l, " answer: transfer: ") || !strings.Contains(l, wantResult[ag]) {
			t.Errorf("%s answer after the restart: %q, want it to carry %q", ag, l, wantResult[ag])
		}
		second.line(ag + ": model reads transfer: ")
		if strings.Contains(second.output(), ag+": model reads lookup") {
			t.Errorf("%s: the restart ran lookup again:\n%s", ag, second.output())
		}
		if tk := ticket(t, st, tickets[ag]); tk.State != approval0.TicketConsumed {
			t.Errorf("%s ticket after the resumed call: %s, want consumed", ag, tk.State)
		}
	}
	// Finished runs leave no state behind: no paused run, no checkpoint.
	var left []string
	filepath.WalkDir(filepath.Join(dir, "runs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left = append(left, path)
		}
		return err
	})
	if len(left) != 0 {
		t.Errorf("state left by the finished runs: %q", left)
	}
	paid := payments(t, dir)
	if got, want := len(paid), 2; got != want {
		t.Fatalf("payments after the restart: %q, want %d", paid, want)
	}

	// 6. Replaying the runs' saved state once they are done (resuming
	// twice): the calls present used-up tickets, so they ask for approval
	// anew instead of paying twice. Eino pauses again on a new ticket;
	// genkit refuses an interrupt during a restart, so the Genkit run
	// fails after the new ticket was asked for.
	os.RemoveAll(filepath.Join(dir, "runs"))
	copyDir(t, saved, filepath.Join(dir, "runs"))
	replay := startChild(t, run("-wait=false")...)
	if err := replay.wait(); err == nil || !strings.Contains(replay.stderr.String(), "interrupt during a restarted execution") {
		t.Errorf("replay: %v, want genkit's refusal to interrupt a restart; stderr:\n%s", err, replay.stderr.String())
	}
	if tk := ticket(t, st, replay.pausedTicket("eino")); tk.ID == tickets["eino"] || tk.State != approval0.TicketPending {
		t.Errorf("eino replayed: ticket %s %s, want a new pending ticket (the approved one was %s)", tk.ID, tk.State, tickets["eino"])
	}
	asked := map[string]bool{}
	for r, err := range st.ledger.Query(ctx, ledger.Query{Tool: "transfer", Outcome: string(adapter.KindApprovalPending)}) {
		if err != nil {
			t.Fatal(err)
		}
		if tk := ticket(t, st, r.Ticket); tk.State == approval0.TicketPending && r.Integration == "genkit" {
			asked[r.Ticket] = true
		}
	}
	if len(asked) != 1 || asked[tickets["genkit"]] {
		t.Errorf("genkit replayed: new pending tickets %v, want one (the approved one was %s)", asked, tickets["genkit"])
	}
	if got := payments(t, dir); !equal(got, paid) {
		t.Fatalf("payments after the replay: %q, want still %q", got, paid)
	}

	// 7. The ledger: the records of the crash are untouched, each approved
	// transfer ran once, with its ticket, approver and the approved
	// arguments, and no call ran twice; the chain verifies, the pin is
	// the one pinned before the crash.
	all := records(t, st)
	if !equal(summary(all[:4]), summary(recs)) {
		t.Errorf("ledger's first records changed: %v, want %v", summary(all[:4]), summary(recs))
	}
	// One record per attempt, in order.
	var got []string
	for _, r := range all {
		got = append(got, strings.Join([]string{r.Integration, r.Tool, r.Outcome, r.Subject}, " "))
	}
	want := []string{
		"eino lookup ok alice", "eino transfer approval_pending alice", // before the crash
		"genkit lookup ok alice", "genkit transfer approval_pending alice",
		"eino transfer approval_denied mallory", "genkit transfer approval_denied mallory", // mallory's process
		"eino transfer ok alice", "genkit transfer ok alice", // the restart
		"eino transfer approval_pending alice", "genkit transfer approval_pending alice", // the replay
	}
	if !equal(got, want) {
		t.Fatalf("ledger:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Eino resumes the call it paused (same call id); genkit's restart is
	// a call of its own, named by the request's ref.
	if all[6].CallID != all[1].CallID {
		t.Errorf("eino: the resumed call's id is %s, the paused call's %s", all[6].CallID, all[1].CallID)
	}
	ran := map[string]int{}
	var transfers []ledger.Record
	for _, r := range all {
		if r.Outcome == ledger.OutcomeOK {
			ran[r.CallID]++
			if r.Tool == "transfer" {
				transfers = append(transfers, r)
			}
		}
	}
	for id, n := range ran {
		if n != 1 {
			t.Errorf("call %s ran %d times", id, n)
		}
	}
	if len(transfers) != 2 {
		t.Fatalf("transfers that ran: %d, want 2:\n%v", len(transfers), summary(all))
	}
	for i, ag := range agents {
		r, tk := transfers[i], ticket(t, st, tickets[ag])
		args, err := canonical.JSON(r.Args)
		if err != nil {
			t.Fatalf("%s transfer record's args %s: %v", ag, r.Args, err)
		}
		if r.Ticket != tk.ID || r.Approver != operator || r.Subject != defaultSubject || r.ArgsHash != tk.ArgsHash || string(args) != wantArgs[ag] {
			t.Errorf("%s transfer record: ticket %s approver %q subject %q args %s (hash %s), want ticket %s approver %q subject %q args %s (hash %s)",
				ag, r.Ticket, r.Approver, r.Subject, args, r.ArgsHash, tk.ID, operator, defaultSubject, wantArgs[ag], tk.ArgsHash)
		}
		if r.RunID != tk.RunID {
			t.Errorf("%s transfer ran in run %s, the ticket was asked in run %s", ag, r.RunID, tk.RunID)
		}
		if !strings.Contains(strings.Join(paid, "\n"), r.CallID+" ") {
			t.Errorf("%s transfer call %s is not the one that paid: %q", ag, r.CallID, paid)
		}
	}
	if err := st.ledger.Verify(ctx); err != nil {
		t.Errorf("Verify at the end: %v", err)
	}
	if got := pins(t, st); got != pin {
		t.Errorf("pin at the end: %s, want %s (from before the crash)", got, pin)
	}
}

// openTestState opens the store as the program does, through its public
// API (sqlitestore's or pgstore's).
// TestKilledMidRun kills the program the moment its Eino run's first call
// returned (the model has read its result): the durable ledger already
// holds that call's record. The run had not reached an interrupt, so it
// has no checkpoint: a restart starts it over (its calls run again).
func TestKilledMidRun(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testKilledMidRun(t, "") })
	t.Run("postgres", func(t *testing.T) { testKilledMidRun(t, postgresDSN(t)) })
}

func testKilledMidRun(t *testing.T, dsn string) {
	dir := t.TempDir()
	args := []string{"run", "-wait=false"}
	if dsn != "" {
		args = append(args, "-db", dsn)
	}
	args = append(args, dir)
	c := startSpec(t, childSpec{Args: args, DieAfter: "eino: model reads lookup: "})
	c.killed()
	st := openTestState(t, dir, dsn)
	recs := records(t, st)
	if got, want := summary(recs), []string{"lookup ok"}; !equal(got, want) || recs[0].Integration != "eino" {
		t.Fatalf("ledger after a kill right after the first call: %v, want %v (eino)", got, want)
	}
	if err := st.ledger.Verify(context.Background()); err != nil {
		t.Errorf("Verify: %v", err)
	}
	pin := pins(t, st)

	again := startChild(t, args...)
	again.finish()
	again.pausedTicket("eino")
	again.pausedTicket("genkit")
	want := []string{"lookup ok", "lookup ok", "transfer approval_pending", "lookup ok", "transfer approval_pending"}
	if got := summary(records(t, st)); !equal(got, want) {
		t.Errorf("ledger after the restart: %v, want %v", got, want)
	}
	if got := pins(t, st); got != pin {
		t.Errorf("pin after the restart: %s, want %s", got, pin)
	}
}

func openTestState(t *testing.T, dir, dsn string) *state {
	t.Helper()
	st, err := openState(context.Background(), dir, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.close() })
	return st
}

func ticket(t *testing.T, st *state, id string) *approval0.Ticket {
	t.Helper()
	tk, err := st.tickets.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("ticket %s: %v", id, err)
	}
	return tk
}

func records(t *testing.T, st *state) []ledger.Record {
	t.Helper()
	var out []ledger.Record
	for r, err := range st.ledger.Query(context.Background(), ledger.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func summary(recs []ledger.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Tool + " " + r.Outcome
	}
	return out
}

// pins returns the one pin there must be: the bank's lookup tool.
func pins(t *testing.T, st *state) string {
	t.Helper()
	var all []pin.Pin
	for p, err := range st.pins.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, p)
	}
	if len(all) != 1 || all[0].Key != pin.Key("bank", "lookup") || all[0].Hash == "" {
		t.Fatalf("pins: %+v, want one for bank's lookup", all)
	}
	return all[0].Hash
}

func payments(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "payments.log"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func equal(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
}
