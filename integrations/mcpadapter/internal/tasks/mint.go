package tasks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/taskwire"
)

// An imported tool called as a task through the export (the gateway, or a
// library export of a manager's tools) gets its export task when its
// upstream makes one, not on the first round, so that an upstream that
// answers first with an input-required result (SEP-2322), before any
// task, is answered as it is (the relay's signed state carries the
// upstream's requestState), and its task, minted on the round with the
// answers, carries neither. The call runs as a plain call until the
// import sees the upstream's CreateTaskResult and calls Mint, which
// mints the export's task, answers the caller with it and lets the call
// go on as that task; every other outcome is the task's too: a call still
// running after taskMintGrace (a slow synchronous upstream) gets its task
// then, and a call that ends first with anything but an input-required
// result gets one holding that outcome. Past the caller's task cap a
// Optional call is answered when it ends; a Required one is
// refused with run_limit_exceeded (a result it reached all the same is
// answered as it is).

// taskMintGrace is how long an imported call may run before its export
// task is minted without the upstream's.
const taskMintGrace = time.Second

// taskMintKey carries a *taskMinter to an imported tool's call.
type taskMintKey struct{}

// taskMinter mints the export's task of one imported call, at most once.
type taskMinter struct {
	st      *Store
	owner   string
	support string
	root    context.Context    // of the call, without the caller's cancellation
	cancel  context.CancelFunc // of root
	follow  func() bool        // stops the caller's cancellation reaching the call
	minted  chan *CreateResult

	mu       sync.Mutex
	ref      *Ref
	tctx     context.Context // the task's: root until the task's deadline
	tcancel  context.CancelFunc
	refused  bool  // no task is to be minted
	why      error // why, for a Required call
	finished bool  // the call returned
}

// Mint mints the export's task of the call ctx belongs to, if the
// call comes through an export that waits for one (see above), and
// returns the context the call goes on with: the task's, carrying it for
// AskInput, until its deadline. Without such an export it returns ctx.
// An error (the caller has gone, the task caps are reached for a tool
// that runs only as a task) means the upstream's task is to be cancelled.
func Mint(ctx context.Context) (context.Context, error) {
	m, ok := ctx.Value(taskMintKey{}).(*taskMinter)
	if !ok {
		return ctx, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.finished {
		return ctx, nil
	}
	ref, err := m.mintLocked()
	if ref == nil {
		return ctx, err
	}
	tctx, cancel := context.WithDeadline(context.WithValue(ctx, Key{}, ref), ref.t.expires)
	prev := m.tcancel
	m.tcancel = func() { cancel(); prev() }
	return tctx, nil
}

// mintLocked mints the task unless it is minted (its ref) or refused (nil
// and, for a Required call, why).
func (m *taskMinter) mintLocked() (*Ref, error) {
	if m.ref != nil || m.refused {
		return m.ref, m.why
	}
	t, err := m.st.create(m.owner)
	if err != nil {
		m.refused = true
		if m.support == Required {
			m.why = &adapter.Error{Kind: adapter.KindRunLimitExceeded, Message: err.Error()}
		}
		return nil, m.why
	}
	if !m.follow() {
		// The caller's request ended: the call is cancelled, no task is due.
		m.st.abandon(t)
		m.refused, m.why = true, context.Canceled
		return nil, m.why
	}
	m.st.mu.Lock()
	t.cancel = m.cancel
	info := m.st.infoLocked(t)
	m.st.mu.Unlock()
	m.ref = &Ref{st: m.st, t: t}
	m.tctx, m.tcancel = context.WithDeadline(context.WithValue(m.root, Key{}, m.ref), t.expires)
	m.minted <- &CreateResult{ResultType: taskwire.ResultTypeTask, Info: info}
	return m.ref, nil
}

// abandon forgets a task minted for nothing (its call was cancelled
// first), and its count in wg.
func (st *Store) abandon(t *task) {
	st.mu.Lock()
	st.forgetLocked(t)
	st.mu.Unlock()
	st.wg.Done()
}

// callImported serves a task-negotiated call of an imported tool: a plain
// call until the import mints the task (Mint), then the task.
func (st *Store) CallImported(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest, owner string, support string) (mcp.Result, error) {
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m := &taskMinter{st: st, owner: owner, support: support, root: cctx, cancel: cancel, minted: make(chan *CreateResult, 1)}
	m.follow = context.AfterFunc(ctx, cancel)
	stopAfter := context.AfterFunc(st.bg, cancel)
	type answer struct {
		res mcp.Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := next(context.WithValue(cctx, taskMintKey{}, m), "tools/call", req)
		m.mu.Lock()
		m.finished = true
		if cr, _ := res.(*mcp.CallToolResult); m.ref == nil && !(err == nil && cr != nil && cr.InputRequests != nil) {
			m.mintLocked() // the outcome is the task's; past the caps it is answered as it is
		}
		ref, tctx, tcancel := m.ref, m.tctx, m.tcancel
		m.mu.Unlock()
		if ref == nil {
			m.follow()
			stopAfter()
			cancel()
			done <- answer{res, err}
			return
		}
		// A task: counted in st.wg by create.
		defer st.wg.Done()
		defer stopAfter()
		defer cancel()
		defer tcancel()
		st.runFrom(tctx, ref.t, next, req, res, err)
	}()
	grace := time.NewTimer(taskMintGrace)
	defer grace.Stop()
	for {
		select {
		case r := <-m.minted:
			return r, nil
		case a := <-done:
			if a.err == nil && a.res == nil {
				return nil, fmt.Errorf("mcpadapter: internal: no result")
			}
			return a.res, a.err
		case <-grace.C:
			m.mu.Lock()
			var why error
			if !m.finished {
				_, why = m.mintLocked()
			}
			m.mu.Unlock()
			if why != nil && !errors.Is(why, context.Canceled) {
				cancel() // a Required call past the caps: refused, as it would be at once
				return st.errorResult(why), nil
			}
		}
	}
}
