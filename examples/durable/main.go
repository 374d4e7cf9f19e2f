// Command durable runs agents whose state outlives the process, offline
// (scripted models stand in for real ones): an Eino react agent and a
// Genkit generation, each looking an account up with a read-only tool
// imported from an MCP server, then sending money with a tool that needs
// approval.
//
// Everything the executor remembers is in one SQLite file (package
// sqlitestore), or in PostgreSQL (package pgstore) with -db postgres://...:
// the approval tickets, the ledger in durable mode (a call returns only
// once its record is committed), the pinned definitions of the imported
// tools. A run paused for approval is on disk too: the Eino run as its
// checkpoint (a file-backed compose.CheckPointStore), the Genkit run as its
// interrupted response.
//
//	go run ./durable                   # the whole story in one process, in a temporary directory
//	go run ./durable run DIR           # start, or continue, the runs kept in DIR; waits for approvals
//	go run ./durable approve DIR       # approve every pending ticket, as an operator would
//
// DIR holds the paused runs and the effects (payments.log), and the SQLite
// database (state.db) unless -db names another file or a PostgreSQL DSN.
//
// Kill "run" at any point, kill -9 included, and start it again: a run
// that paused for approval is still paused and its ticket still pending;
// once the ticket is approved, the Eino run resumes from its checkpoint and
// the Genkit run restarts the held call, which runs once, with the approved
// arguments, for the caller who asked. Every call that returned before the
// kill is in the ledger. The pauses are the runs' only resume points: a
// run killed before its first pause has no checkpoint and starts over, its
// calls running again (eino saves a checkpoint at an interrupt, not after
// every step). A paused run resumed again once it finished (a copy of its
// state replayed) presents a used ticket: its call asks for approval
// anew, it does not run twice.
//
// "run -subject NAME" acts for another user, whose attempt to use alice's
// tickets is denied; "run -wait=false" resumes the runs whose tickets are
// decided and leaves the others paused instead of waiting.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	approval0 "github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
	"github.com/agentadapter/agentadapter/registry"
	pgstore "github.com/agentadapter/agentadapter/store/postgres"
	sqlitestore "github.com/agentadapter/agentadapter/store/sqlite"
)

const (
	// defaultSubject is the user the agents act for.
	defaultSubject = "alice"
	// operator is who approves in the demo and in "approve".
	operator = "ops"

	einoQuestion   = "Pay bob 100 if he has an account."
	genkitQuestion = "Pay carol 250 if she has an account."
)

func main() {
	log.SetFlags(0)
	if err := cli(context.Background(), os.Args[1:], os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// cli runs the command line args, writing what happens to out.
func cli(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return demo(ctx, out)
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	subject := fs.String("subject", defaultSubject, "the user the agents act for")
	wait := fs.Bool("wait", true, "wait for approvals (false: leave paused the runs whose tickets are pending)")
	dsn := fs.String("db", "", "the SQLite file or PostgreSQL DSN (postgres://...) of the executor's state; empty means DIR/state.db")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("usage: durable [run [-subject NAME] [-wait=false] [-db DSN] DIR | approve [-db DSN] DIR]")
	}
	dir := fs.Arg(0)
	switch args[0] {
	case "run":
		a, err := open(ctx, dir, *dsn, out)
		if err != nil {
			return err
		}
		defer a.close()
		return a.run(ctx, *subject, *wait)
	case "approve":
		st, err := openState(ctx, dir, *dsn)
		if err != nil {
			return err
		}
		defer st.close()
		return approveAll(ctx, &approval0.Deferred{Store: st.tickets}, out)
	}
	return fmt.Errorf("unknown command %q", args[0])
}

// demo runs the story in one process: the runs pause, an operator
// approves, the runs continue. (Run, kill and run again the "run" command
// to see the same across processes.)
func demo(ctx context.Context, out io.Writer) error {
	dir, err := os.MkdirTemp("", "durable-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	a, err := open(ctx, dir, "", out)
	if err != nil {
		return err
	}
	defer a.close()
	if err := a.run(ctx, defaultSubject, false); err != nil {
		return err
	}
	if err := approveAll(ctx, a.approvals, out); err != nil {
		return err
	}
	if err := a.run(ctx, defaultSubject, true); err != nil {
		return err
	}
	fmt.Fprintln(out, "ledger:")
	for r, err := range a.st.ledger.Query(ctx, ledger.Query{}) {
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  #%d %-8s %-16s run %s approval %q by %q\n", r.Seq, r.Tool, r.Outcome, r.RunID, r.Approval, r.Approver)
	}
	if err := a.st.ledger.Verify(ctx); err != nil {
		return err
	}
	fmt.Fprintln(out, "ledger chain verified")
	return nil
}

// app is one process's executor, tools and agents, on the state in dir.
type app struct {
	dir       string
	out       io.Writer
	st        *state
	approvals *approval0.Deferred
	exec      *adapter.Executor
	mgr       *mcpadapter.Manager
	bank      *mcp.ServerSession

	eino        compose.Runnable[[]*schema.Message, *schema.Message]
	checkpoints *checkpoints
	g           *genkit.Genkit
	genkitModel ai.Model
	genkitTools []ai.ToolRef
}

// state is the executor's state as this program uses it; sqlitestore and
// pgstore both provide it.
type state struct {
	tickets interface {
		approval0.Store
		// Wait blocks until a ticket is decided, by any process.
		Wait(ctx context.Context, id string) (*approval0.Ticket, error)
	}
	ledger interface {
		ledger.Durable
		ledger.Reader
		ledger.Verifier
	}
	pins  pin.Store
	close func() error
}

// openState opens the store dsn names: a PostgreSQL DSN, a SQLite file, or
// (empty) DIR/state.db. Both ledgers are durable: a call returns only once
// its record is committed, so a crash loses no record of a call that
// finished.
func openState(ctx context.Context, dir, dsn string) (*state, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		db, err := pgstore.Open(ctx, dsn, &pgstore.Options{Durable: true})
		if err != nil {
			return nil, err
		}
		return &state{tickets: db.Tickets(), ledger: db.Ledger(), pins: db.Pins(), close: db.Close}, nil
	}
	if dsn == "" {
		dsn = filepath.Join(dir, "state.db")
	}
	db, err := sqlitestore.Open(ctx, dsn, &sqlitestore.Options{Durable: true})
	if err != nil {
		return nil, err
	}
	return &state{tickets: db.Tickets(), ledger: db.Ledger(), pins: db.Pins(), close: db.Close}, nil
}

// open sets up the process: the store, the tools (one imported from an
// MCP server, its definition pinned in the store), the executor, the
// agents. Genkit is initialised here, and only once per process: genkit.Init
// installs process-wide signal handling and tracing.
func open(ctx context.Context, dir, dsn string, out io.Writer) (_ *app, err error) {
	st, err := openState(ctx, dir, dsn)
	if err != nil {
		return nil, err
	}
	a := &app{dir: dir, out: out, st: st}
	defer func() {
		if err != nil {
			a.close()
		}
	}()

	reg := registry.New()
	reg.MustRegister(adapter.MustTool("transfer", "Sends money from the user's account.", a.transfer,
		&adapter.ToolOptions{Output: adapter.OutputText}))

	// The bank's MCP server runs in this process; its tool's definition is
	// pinned in the store on the first run and checked on every later one.
	server := mcp.NewServer(&mcp.Implementation{Name: "bank", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "lookup", Description: "Looks an account up.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, lookup)
	ct, srvT := mcp.NewInMemoryTransports()
	if a.bank, err = server.Connect(ctx, srvT, nil); err != nil {
		return nil, err
	}
	a.mgr = mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Strict: true, PinStore: st.pins})
	if err := a.mgr.Connect(ctx, mcpadapter.Upstream{Name: "bank", Transport: ct, Trust: true}); err != nil {
		return nil, err
	}

	a.approvals = &approval0.Deferred{Store: st.tickets}
	a.exec = adapter.NewExecutor(reg, &adapter.ExecutorOptions{
		Ledger: st.ledger,
		Approval: adapter.ApprovalOptions{Port: a.approvals, Tools: map[string]adapter.ApprovalPolicy{
			"lookup":   adapter.ApproveNever,
			"transfer": adapter.ApproveAlways,
		}},
	})

	if a.eino, err = a.einoGraph(ctx, reg); err != nil {
		return nil, err
	}

	a.g = genkit.Init(ctx)
	// genkit.Init captures SIGINT and SIGTERM for good; give them back.
	signal.Reset(os.Interrupt, syscall.SIGTERM)
	a.genkitModel = genkitScripted(a.g, out)
	if a.genkitTools, err = genkitadapter.Tools(a.g, reg, a.exec, nil); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *app) close() {
	if a.exec != nil {
		a.exec.Close()
	}
	if a.mgr != nil {
		a.mgr.Close()
	}
	if a.bank != nil {
		a.bank.Close()
	}
	a.st.close()
}

// einoGraph wraps the react agent's graph in one compiled with the
// checkpoint store: react.NewAgent takes none.
func (a *app) einoGraph(ctx context.Context, reg *registry.Registry) (compose.Runnable[[]*schema.Message, *schema.Message], error) {
	tools, err := einoadapter.Tools(reg, a.exec, nil)
	if err != nil {
		return nil, err
	}
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: &einoScripted{out: a.out},
		ToolsConfig:      compose.ToolsNodeConfig{Tools: tools, UnknownToolsHandler: einoadapter.UnknownToolsHandler(a.exec)},
	})
	if err != nil {
		return nil, err
	}
	g := compose.NewGraph[[]*schema.Message, *schema.Message]()
	ag, opts := agent.ExportGraph()
	if err := g.AddGraphNode("agent", ag, opts...); err != nil {
		return nil, err
	}
	if err := g.AddEdge(compose.START, "agent"); err != nil {
		return nil, err
	}
	if err := g.AddEdge("agent", compose.END); err != nil {
		return nil, err
	}
	a.checkpoints = &checkpoints{dir: filepath.Join(a.dir, "runs", "checkpoints")}
	return g.Compile(ctx, compose.WithCheckPointStore(a.checkpoints))
}

type transferIn struct {
	To     string `json:"to" jsonschema:"recipient"`
	Amount int    `json:"amount" jsonschema:"amount in cents"`
}

// transfer "sends" the money: it appends a line to payments.log, the
// effect that must happen once per approved call, whatever crashes.
func (a *app) transfer(ctx context.Context, in transferIn) (string, error) {
	f, err := os.OpenFile(filepath.Join(a.dir, "payments.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%s %s %d\n", adapter.ToolCallFromContext(ctx).CallID, in.To, in.Amount); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	return fmt.Sprintf("sent %d to %s", in.Amount, in.To), nil
}

type lookupIn struct {
	Account string `json:"account"`
}

type lookupOut struct {
	Account string `json:"account"`
	Open    bool   `json:"open"`
}

func lookup(_ context.Context, _ *mcp.CallToolRequest, in lookupIn) (*mcp.CallToolResult, lookupOut, error) {
	return nil, lookupOut{Account: in.Account, Open: true}, nil
}

// paused is a run waiting for approvals, as kept in runs/<agent>.json.
type paused struct {
	// Run is the run id: the ledger's run id and the Eino checkpoint id.
	Run       string     `json:"run"`
	Approvals []approval `json:"approvals"`
	// Response is the Genkit run's interrupted response: its history and
	// the interrupted tool requests.
	Response *ai.ModelResponse `json:"response,omitempty"`
}

type approval struct {
	Ticket string `json:"ticket"`
	Tool   string `json:"tool"`
	Args   string `json:"args"`
	// Interrupt is the Eino interrupt id to resume.
	Interrupt string `json:"interrupt,omitempty"`
}

// agent starts a run, or resumes a paused one; a nil *paused means the
// run finished.
type agent struct {
	name   string
	start  func(ctx context.Context, run string) (*paused, error)
	resume func(ctx context.Context, p *paused) (*paused, error)
}

// run starts the agents, or picks up their paused runs, and resumes each
// paused run once its tickets are decided: with wait, until every run is
// done; without, leaving paused the runs whose tickets are still pending.
func (a *app) run(ctx context.Context, subject string, wait bool) error {
	// The caller's identity: an approval is bound to the subject who asked.
	ctx = adapter.WithIdentity(ctx, &caller.Identity{Subject: subject})
	agents := []agent{{"eino", a.einoStart, a.einoResume}, {"genkit", a.genkitStart, a.genkitResume}}
	state := make([]*paused, len(agents))
	for i, ag := range agents {
		p := new(paused)
		ok, err := loadJSON(a.pausedPath(ag.name), p)
		if err != nil {
			return err
		}
		if !ok {
			if p, err = ag.start(ctx, newRunID()); err != nil {
				return fmt.Errorf("%s: %w", ag.name, err)
			}
			if err := a.save(ag.name, p); err != nil {
				return err
			}
		}
		state[i] = p
		a.report(ag.name, p)
	}
	waiting := false
	for i, ag := range agents {
		for state[i] != nil {
			decided, err := a.decided(ctx, ag.name, state[i], wait, &waiting)
			if err != nil {
				return err
			}
			if !decided {
				break // -wait=false: leave it paused
			}
			p, err := ag.resume(ctx, state[i])
			if err != nil {
				return fmt.Errorf("%s: %w", ag.name, err)
			}
			if err := a.save(ag.name, p); err != nil {
				return err
			}
			state[i] = p
			a.report(ag.name, p)
		}
	}
	return nil
}

// decided reports whether every ticket of a paused run is decided, waiting
// for the decisions if wait is set.
func (a *app) decided(ctx context.Context, name string, p *paused, wait bool, waiting *bool) (bool, error) {
	for _, ap := range p.Approvals {
		t, err := a.st.tickets.Get(ctx, ap.Ticket)
		if errors.Is(err, adapter.ErrTicketNotFound) {
			continue // expired and swept: the resumed call asks again
		}
		if err != nil {
			return false, err
		}
		if t.State == approval0.TicketPending {
			if !wait {
				return false, nil
			}
			if !*waiting {
				fmt.Fprintln(a.out, "waiting for approvals")
				*waiting = true
			}
			if t, err = a.st.tickets.Wait(ctx, ap.Ticket); err != nil {
				return false, err
			}
		}
		fmt.Fprintf(a.out, "%s: ticket %s is %s (by %q)\n", name, t.ID, t.State, t.Approver)
	}
	return true, nil
}

func (a *app) pausedPath(name string) string { return filepath.Join(a.dir, "runs", name+".json") }

// save keeps a paused run, or forgets a finished one.
func (a *app) save(name string, p *paused) error {
	if p == nil {
		err := os.Remove(a.pausedPath(name))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	return saveJSON(a.pausedPath(name), p)
}

func (a *app) report(name string, p *paused) {
	if p == nil {
		return
	}
	for _, ap := range p.Approvals {
		fmt.Fprintf(a.out, "%s: run %s paused: %s %s awaits approval of ticket %s\n", name, p.Run, ap.Tool, ap.Args, ap.Ticket)
	}
}

func newRunID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "run_" + hex.EncodeToString(b)
}

// Eino: the run's id is its checkpoint id; a paused run resumes from it.

func (a *app) einoStart(ctx context.Context, run string) (*paused, error) {
	ctx, _ = adapter.WithRun(ctx, &adapter.RunOptions{ID: run})
	fmt.Fprintf(a.out, "eino: run %s: %s\n", run, einoQuestion)
	msg, err := a.eino.Invoke(ctx, []*schema.Message{schema.UserMessage(einoQuestion)}, compose.WithCheckPointID(run))
	return a.einoDone(run, msg, err)
}

func (a *app) einoResume(ctx context.Context, p *paused) (*paused, error) {
	ctx, _ = adapter.WithRun(ctx, &adapter.RunOptions{ID: p.Run})
	ids := make([]string, 0, len(p.Approvals))
	for _, ap := range p.Approvals {
		ids = append(ids, ap.Interrupt)
	}
	msg, err := a.eino.Invoke(compose.Resume(ctx, ids...), nil, compose.WithCheckPointID(p.Run))
	return a.einoDone(p.Run, msg, err)
}

func (a *app) einoDone(run string, msg *schema.Message, err error) (*paused, error) {
	if pending := einoadapter.PendingFromError(err); len(pending) > 0 {
		p := &paused{Run: run}
		for _, pd := range pending {
			p.Approvals = append(p.Approvals, approval{Ticket: pd.Ticket, Tool: pd.Tool, Args: pd.Args, Interrupt: pd.InterruptID})
		}
		return p, nil
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(a.out, "eino: run %s answer: %s\n", run, msg.Content)
	// A finished run's checkpoint is of no more use (resuming it would
	// only ask for approval again).
	return nil, a.checkpoints.remove(run)
}

// Genkit: a paused run is its interrupted response; restarting the held
// calls presents their tickets.

func (a *app) genkitOpts(more ...ai.GenerateOption) []ai.GenerateOption {
	return append([]ai.GenerateOption{ai.WithModel(a.genkitModel), ai.WithTools(a.genkitTools...)}, more...)
}

func (a *app) genkitStart(ctx context.Context, run string) (*paused, error) {
	ctx, _ = adapter.WithRun(ctx, &adapter.RunOptions{ID: run})
	fmt.Fprintf(a.out, "genkit: run %s: %s\n", run, genkitQuestion)
	resp, err := genkit.Generate(ctx, a.g, a.genkitOpts(ai.WithPrompt(genkitQuestion))...)
	return a.genkitDone(run, resp, err)
}

func (a *app) genkitResume(ctx context.Context, p *paused) (*paused, error) {
	ctx, _ = adapter.WithRun(ctx, &adapter.RunOptions{ID: p.Run})
	// The tickets were decided elsewhere (an operator, through the store):
	// nothing to decide here but to go on.
	resp, err := genkitadapter.Resume(ctx, a.g, p.Response,
		func(context.Context, *genkitadapter.Approval) error { return nil }, a.genkitOpts()...)
	return a.genkitDone(p.Run, resp, err)
}

func (a *app) genkitDone(run string, resp *ai.ModelResponse, err error) (*paused, error) {
	if err != nil {
		return nil, err
	}
	if resp.FinishReason == ai.FinishReasonInterrupted {
		approvals := genkitadapter.Approvals(resp)
		if len(approvals) != len(resp.Interrupts()) {
			return nil, errors.New("interrupted by something other than an approval")
		}
		p := &paused{Run: run, Response: resp}
		for _, ap := range approvals {
			p.Approvals = append(p.Approvals, approval{Ticket: ap.Ticket, Tool: ap.Tool, Args: string(ap.Args)})
		}
		return p, nil
	}
	fmt.Fprintf(a.out, "genkit: run %s answer: %s\n", run, resp.Text())
	return nil, nil
}

// approveAll approves every pending ticket as the operator.
func approveAll(ctx context.Context, approvals *approval0.Deferred, out io.Writer) error {
	var pending []*approval0.Ticket
	for t, err := range approvals.Pending(ctx) {
		if err != nil {
			return err
		}
		pending = append(pending, t)
	}
	for _, t := range pending {
		if err := approvals.Approve(ctx, t.ID, operator); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s approved ticket %s: %s %s, asked by %s\n", operator, t.ID, t.Tool, t.Args, t.Subject)
	}
	return nil
}
