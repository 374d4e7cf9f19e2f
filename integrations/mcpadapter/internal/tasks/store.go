package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/taskwire"
)

// Store keeps an exporter's tasks, bounded per caller and in total,
// each for its TTL.
type Store struct {
	opts        Options
	errorResult func(error) *mcp.CallToolResult
	bg          context.Context // cancelled by close: ends every running task
	stop        context.CancelFunc
	wg          sync.WaitGroup // running tasks

	mu       sync.Mutex
	closed   bool // by close: no task is started
	tasks    map[string]*task
	per      map[string]int    // owner → tasks kept
	bytes    int               // of the results and open questions kept
	perBytes map[string]int    // owner → bytes of its results and open questions
	dropped  map[string]string // id → owner, of the tasks whose result was dropped
	drops    []string          // their ids, oldest first (at most maxTasksTotal)
}

// task is one task; its fields are guarded by the store's mu.
type task struct {
	id, owner string
	created   time.Time
	expires   time.Time
	updated   time.Time
	status    string
	message   string
	result    json.RawMessage // counted in the store's bytes
	err       *taskwire.Error
	cancel    context.CancelFunc
	pending   mcp.InputRequestMap        // open questions, in input_required
	asked     json.RawMessage            // pending as JSON, marshalled once; counted in the store's bytes
	answers   map[string]json.RawMessage // answers to them so far
	wake      chan struct{}              // closed when the questions are answered or the task is cancelled
}

// NewStore returns an empty store; errorResult makes the tool error
// result of a refused call.
func NewStore(opts *Options, errorResult func(error) *mcp.CallToolResult) *Store {
	st := &Store{errorResult: errorResult, tasks: map[string]*task{}, per: map[string]int{}, perBytes: map[string]int{}, dropped: map[string]string{}}
	if opts != nil {
		st.opts = *opts
	}
	st.bg, st.stop = context.WithCancel(context.Background())
	return st
}

// taskCloseWait bounds how long close waits for the cancelled tasks'
// calls to return.
const taskCloseWait = 10 * time.Second

// close cancels every running task and waits (at most taskCloseWait) for
// their calls to return, so that the executor closed after the exporter
// has none inside it; tasks are refused from then on.
func (st *Store) Close() {
	if st == nil {
		return
	}
	st.mu.Lock()
	st.closed = true
	st.mu.Unlock()
	st.stop()
	done := make(chan struct{})
	go func() {
		st.wg.Wait()
		close(done)
	}()
	timer := time.NewTimer(taskCloseWait)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	}
}

// Start runs a tools/call of a local tool as a task of owner's and
// answers its CreateTaskResult; an error (past the caps, the store
// closed) means no task was made and the call did not run.
func (st *Store) Start(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest, owner string) (mcp.Result, error) {
	t, err := st.create(owner)
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), t.expires)
	stopAfter := context.AfterFunc(st.bg, cancel)
	st.mu.Lock()
	t.cancel = cancel
	info := st.infoLocked(t)
	st.mu.Unlock()
	go func() { // counted in st.wg by create
		defer st.wg.Done()
		defer stopAfter()
		defer cancel()
		st.run(context.WithValue(rctx, Key{}, &Ref{st: st, t: t}), t, next, req)
	}()
	return &CreateResult{ResultType: taskwire.ResultTypeTask, Info: info}, nil
}

// create makes a task for owner, refusing one past the caps, and counts
// its goroutine in st.wg (under mu, so that none is added once close
// waits).
func (st *Store) create(owner string) (*task, error) {
	now := time.Now()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return nil, errors.New("the server is shutting down")
	}
	st.sweepLocked(now)
	if st.per[owner] >= st.opts.maxPerCaller() {
		return nil, fmt.Errorf("too many tasks: at most %d per caller are kept (each for %s)", st.opts.maxPerCaller(), st.opts.ttl())
	}
	if len(st.tasks) >= maxTasksTotal {
		return nil, errors.New("too many tasks: the server keeps no more")
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	t := &task{id: hex.EncodeToString(b[:]), owner: owner, created: now, updated: now,
		expires: now.Add(st.opts.ttl()), status: taskwire.Working, wake: make(chan struct{})}
	st.tasks[t.id] = t
	st.per[owner]++
	st.wg.Add(1)
	return t, nil
}

// sweepLocked forgets the tasks past their TTL that have ended (a running
// one is cancelled at its deadline and forgotten at the next sweep).
func (st *Store) sweepLocked(now time.Time) {
	for _, t := range st.tasks {
		if now.After(t.expires) && Terminal(t.status) {
			st.forgetLocked(t)
		}
	}
}

// forgetLocked removes t from the store.
func (st *Store) forgetLocked(t *task) {
	delete(st.tasks, t.id)
	if st.per[t.owner]--; st.per[t.owner] <= 0 {
		delete(st.per, t.owner)
	}
	st.countLocked(t.owner, -len(t.result))
	st.setPendingLocked(t, nil, nil)
}

// countLocked adds n bytes to owner's and the store's counts.
func (st *Store) countLocked(owner string, n int) {
	if n == 0 {
		return
	}
	st.bytes += n
	if st.perBytes[owner] += n; st.perBytes[owner] <= 0 {
		delete(st.perBytes, owner)
	}
}

// maxPendingBytes bounds the JSON of a task's open questions.
const maxPendingBytes = 1 << 20

// setPendingLocked makes q the open questions of t (nil: none), their
// JSON (raw, or marshalled here if nil) kept for tasks/get to answer as
// is and counted with the results in the store's bytes.
func (st *Store) setPendingLocked(t *task, q mcp.InputRequestMap, raw json.RawMessage) {
	st.countLocked(t.owner, -len(t.asked))
	t.pending, t.asked = q, nil
	if len(q) > 0 {
		if raw == nil {
			raw, _ = json.Marshal(q)
		}
		t.asked = raw
		st.countLocked(t.owner, len(raw))
	}
}

// roomLocked makes room for n more bytes of owner's, dropping the oldest
// finished results (its own past maxResultBytesPerCaller, anyone's past
// maxResultBytes); false if they would not fit even so (the open
// questions of running tasks are not dropped).
func (st *Store) roomLocked(owner string, n int, keep *task) bool {
	for st.perBytes[owner]+n > maxResultBytesPerCaller {
		if !st.dropOldestLocked(owner, keep) {
			return false
		}
	}
	for st.bytes+n > maxResultBytes {
		if !st.dropOldestLocked("", keep) {
			return false
		}
	}
	return true
}

// keepLocked keeps the result of t, dropping the oldest finished results
// of its owner past maxResultBytesPerCaller, then anyone's past
// maxResultBytes; a result past maxResultBytesPerCaller alone fails t.
func (st *Store) keepLocked(t *task, raw json.RawMessage) {
	if len(raw) > maxResultBytesPerCaller {
		t.status, t.message = taskwire.Failed, "the result is too large to keep"
		t.err = &taskwire.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the result (%d bytes) exceeds the %d bytes a caller's tasks keep", len(raw), maxResultBytesPerCaller)}
		return
	}
	if !st.roomLocked(t.owner, len(raw), t) {
		// The rest is others' open questions, not dropped.
		t.status, t.message = taskwire.Failed, "the result is too large to keep"
		t.err = &taskwire.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the result (%d bytes) does not fit in the bytes the tasks keep", len(raw))}
		return
	}
	t.status, t.result = taskwire.Completed, raw
	st.countLocked(t.owner, len(raw))
}

// dropOldestLocked forgets the task with the oldest result, of owner (""
// for anyone's), other than keep, remembering that it was dropped; false
// if there is none.
func (st *Store) dropOldestLocked(owner string, keep *task) bool {
	var oldest *task
	for _, t := range st.tasks {
		if t != keep && len(t.result) > 0 && (owner == "" || t.owner == owner) && (oldest == nil || t.updated.Before(oldest.updated)) {
			oldest = t
		}
	}
	if oldest == nil {
		return false
	}
	st.forgetLocked(oldest)
	if len(st.drops) >= maxTasksTotal {
		delete(st.dropped, st.drops[0])
		st.drops = st.drops[1:]
	}
	st.dropped[oldest.id] = oldest.owner
	st.drops = append(st.drops, oldest.id)
	return true
}

// run calls the tool, answering its rounds of questions (an
// input-required result: an approval, say) through tasks/update, and
// keeps the outcome.
func (st *Store) run(ctx context.Context, t *task, next mcp.MethodHandler, req *mcp.CallToolRequest) {
	res, err := next(ctx, "tools/call", req)
	st.runFrom(ctx, t, next, req, res, err)
}

// runFrom goes on with a task's call from the outcome of its first round.
func (st *Store) runFrom(ctx context.Context, t *task, next mcp.MethodHandler, req *mcp.CallToolRequest, res mcp.Result, err error) {
	for round := 0; ; round++ {
		if round > 0 {
			res, err = next(ctx, "tools/call", req)
		}
		cr, _ := res.(*mcp.CallToolResult)
		if err != nil || cr == nil || cr.InputRequests == nil {
			st.finish(ctx, t, cr, err)
			return
		}
		if round >= maxTaskRounds {
			st.finish(ctx, t, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the tool asked for input more than %d times", maxTaskRounds)})
			return
		}
		answers, err := st.ask(ctx, t, cr.InputRequests)
		if err != nil {
			st.finish(ctx, t, nil, err)
			return
		}
		p := *req.Params
		p.InputResponses, p.RequestState = answers, cr.RequestState
		r := *req
		r.Params = &p
		req = &r
	}
}

// ask puts questions to the task's client: the task is input_required
// until every one is answered (tasks/update), the task cancelled or ctx
// done.
func (st *Store) ask(ctx context.Context, t *task, q mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	st.mu.Lock()
	if Terminal(t.status) {
		st.mu.Unlock()
		return nil, context.Canceled
	}
	if len(t.pending) > 0 {
		st.mu.Unlock()
		return nil, errors.New("mcpadapter: the task is already waiting for input")
	}
	pending := make(mcp.InputRequestMap, len(q))
	for k, v := range q {
		pending[k] = v
	}
	raw, err := json.Marshal(pending)
	switch {
	case err != nil:
		st.mu.Unlock()
		return nil, &adapter.Error{Kind: adapter.KindInternal, Message: "mcpadapter: the questions cannot be encoded as JSON", Err: err}
	case len(raw) > maxPendingBytes:
		st.mu.Unlock()
		return nil, &adapter.Error{Kind: adapter.KindRunLimitExceeded, Message: fmt.Sprintf("mcpadapter: the task's questions (%d bytes) exceed the %d bytes a task may ask at once", len(raw), maxPendingBytes)}
	case !st.roomLocked(t.owner, len(raw), t):
		st.mu.Unlock()
		return nil, &adapter.Error{Kind: adapter.KindRunLimitExceeded, Message: fmt.Sprintf("mcpadapter: the task's questions (%d bytes) do not fit in the %d bytes a caller's tasks keep", len(raw), maxResultBytesPerCaller)}
	}
	t.answers = map[string]json.RawMessage{}
	st.setPendingLocked(t, pending, raw)
	t.wake = make(chan struct{})
	if len(q) == 0 {
		close(t.wake)
	} else {
		t.status, t.message, t.updated = taskwire.InputRequired, "", time.Now()
	}
	wake := t.wake
	st.mu.Unlock()

	select {
	case <-wake:
	case <-ctx.Done():
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if Terminal(t.status) {
		return nil, context.Canceled
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	raw, _ = json.Marshal(t.answers)
	st.setPendingLocked(t, nil, nil)
	t.answers = nil
	t.status, t.updated = taskwire.Working, time.Now()
	var out mcp.InputResponseMap
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid inputResponses"}
	}
	return out, nil
}

// finish keeps the outcome of a task's call, unless the task has ended
// already (cancelled).
func (st *Store) finish(ctx context.Context, t *task, res *mcp.CallToolResult, err error) {
	var raw json.RawMessage
	if err == nil && res != nil {
		if raw, err = json.Marshal(res); err != nil {
			err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal: the result does not encode as JSON"}
		}
	}
	if err == nil && res == nil {
		err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal: no result"}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if Terminal(t.status) {
		return
	}
	t.updated, t.answers = time.Now(), nil
	st.setPendingLocked(t, nil, nil)
	switch {
	case err == nil:
		st.keepLocked(t, raw)
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		t.status, t.message = taskwire.Failed, "the task outlived its TTL"
		t.err = &taskwire.Error{Code: jsonrpc.CodeInternalError, Message: "timeout: the task outlived its TTL"}
	case ctx.Err() != nil:
		t.status, t.message = taskwire.Cancelled, "the server is shutting down"
	default:
		t.status = taskwire.Failed
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			t.err = &taskwire.Error{Code: je.Code, Message: je.Message, Data: je.Data}
		} else if ae := (*adapter.Error)(nil); errors.As(err, &ae) {
			t.err = &taskwire.Error{Code: jsonrpc.CodeInternalError, Message: ae.Message} // a bound of ask
		} else {
			t.err = &taskwire.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
		}
	}
}

// method answers tasks/get, tasks/update and tasks/cancel for owner.
func (st *Store) Method(_ context.Context, method, owner string, p *Params) (mcp.Result, error) {
	if p == nil || p.TaskID == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "taskId is required"}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.sweepLocked(time.Now())
	t, ok := st.tasks[p.TaskID]
	if !ok || t.owner != owner {
		if o, ok := st.dropped[p.TaskID]; ok && o == owner {
			return nil, errTaskDropped
		}
		return nil, errTaskNotFound
	}
	switch method {
	case taskwire.MethodGet:
		d := &Detailed{ResultType: taskwire.ResultTypeComplete, Info: st.infoLocked(t)}
		switch t.status {
		case taskwire.Completed:
			d.Result = t.result
		case taskwire.Failed:
			d.Error = t.err
		case taskwire.InputRequired:
			d.InputRequests = t.asked
		}
		return d, nil
	case taskwire.MethodUpdate:
		if err := st.updateLocked(t, p.InputResponses); err != nil {
			return nil, err
		}
	case taskwire.MethodCancel:
		if !Terminal(t.status) {
			t.status, t.message, t.updated = taskwire.Cancelled, "cancelled by the client", time.Now()
			t.answers = nil
			st.setPendingLocked(t, nil, nil)
			if t.cancel != nil {
				t.cancel()
			}
			closeOnce(t.wake)
		}
	}
	return &Ack{ResultType: taskwire.ResultTypeComplete}, nil
}

// updateLocked records answers to the task's open questions; answers to
// questions not open (answered already, never asked) are ignored.
func (st *Store) updateLocked(t *task, raw json.RawMessage) error {
	if len(raw) == 0 {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "inputResponses is required"}
	}
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil || in == nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "inputResponses must be an object"}
	}
	if t.status != taskwire.InputRequired {
		return nil
	}
	answered := false
	for k, v := range in {
		if _, open := t.pending[k]; !open {
			continue
		}
		var one mcp.InputResponseMap
		if err := json.Unmarshal([]byte(`{"k":`+string(v)+`}`), &one); err != nil {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("inputResponses[%q] is not a valid response", k)}
		}
		t.answers[k] = v
		delete(t.pending, k)
		answered = true
	}
	if answered { // re-marshalled once per update, not per tasks/get
		st.setPendingLocked(t, t.pending, nil)
	}
	t.updated = time.Now()
	if len(t.pending) == 0 {
		t.status = taskwire.Working
		closeOnce(t.wake)
	}
	return nil
}

func closeOnce(c chan struct{}) {
	select {
	case <-c:
	default:
		close(c)
	}
}

func (st *Store) infoLocked(t *task) Info {
	return Info{
		TaskID:         t.id,
		Status:         t.status,
		StatusMessage:  t.message,
		CreatedAt:      t.created.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt:  t.updated.UTC().Format(time.RFC3339Nano),
		TTLMs:          st.opts.ttl().Milliseconds(),
		PollIntervalMs: st.opts.pollInterval().Milliseconds(),
	}
}

// Key carries the running task to the tool's handler (see AskInput).
type Key struct{}

// Ref is the running task a Key carries.
type Ref struct {
	st *Store
	t  *task
}

// ErrNotTask is returned by [AskInput] outside a task.
var ErrNotTask = errors.New("mcpadapter: not running as a task")

// AskInput puts questions to the client of the running task (the
// export's AskInput).
func AskInput(ctx context.Context, questions mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	ref, ok := ctx.Value(Key{}).(*Ref)
	if !ok {
		return nil, ErrNotTask
	}
	return ref.st.ask(ctx, ref.t, questions)
}
