package mcpadapter

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/bridge"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/fanout"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/pages"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/transport"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/uipin"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/urimatch"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
)

// upstream is what a conn knows of its server beyond tools: the resources,
// templates and prompts it lists (listed on first use, listed again after
// its list_changed), the resource subscriptions the exports hold on it and
// the log level they asked of it.
type upstream struct {
	mu        sync.Mutex
	resources []*mcp.Resource // valid while resOK
	templates []*mcp.ResourceTemplate
	patterns  []*regexp.Regexp // the templates', compiled once a listing
	prompts   []*mcp.Prompt    // valid while promptsOK
	resOK     bool
	promptsOK bool
	resAt     time.Time // when resources were listed
	promptsAt time.Time
	subs      map[string]*upSub                       // URI → its subscription (across exports)
	owners    map[string]map[string]int               // caller (taskOwner) → URI → the holds it has of it
	level     mcp.LoggingLevel                        // the most verbose of levels
	levels    map[*mcp.ServerSession]mcp.LoggingLevel // what each export session asked
	levelMu   sync.Mutex                              // orders the logging/setLevel requests sent
	ui        uipin.Pins[Quarantine]                  // the ui:// resources' pins
}

// upSub is one URI's subscription on a server, shared by its subscribers.
type upSub struct {
	n     int           // subscribers, the first's included
	ready chan struct{} // closed once the server answered the first
	err   error         // that answer; set before ready is closed
}

// maxServerSubscriptions bounds the distinct URIs the exports subscribe to
// on one server: from 2026-07-28 on each is a subscriptions/listen stream
// of its own, held open. maxCallerSubscriptions is one caller's share of
// them (the caller as a task's owner is told: taskOwner), so that one
// caller cannot take every place.
const (
	maxServerSubscriptions = 256
	maxCallerSubscriptions = 32
)

// listTTL is how long the lists of a server that announces no list
// changes are kept.
const listTTL = 5 * time.Second

// fresh reports whether a list made at `at` is still good: always for a
// server that announces changes (listChanged), listTTL otherwise.
func fresh(at time.Time, listChanged bool) bool {
	return listChanged || time.Since(at) < listTTL
}

// upstreamEvent is a notification of an upstream server that exports relay.
type upstreamEvent struct {
	conn *conn
	kind eventKind
	uri  string                    // eventUpdated
	log  *mcp.LoggingMessageParams // eventLog
}

type eventKind int

const (
	eventResources eventKind = iota // resources or templates changed
	eventPrompts
	eventUpdated
	eventLog
)

// relay fans the manager's upstream events out to exports. A listener
// must not block: it is called on the go-sdk client's receiving path.
type relay struct{ fanout.Hub[upstreamEvent] }

func (r *relay) listen(fn func(upstreamEvent)) (cancel func()) { return r.Listen(fn) }

func (r *relay) emit(e upstreamEvent) { r.Emit(e) }

// upstreamHandlers sets the client options that follow what the server
// offers beside tools.
func (c *conn) upstreamHandlers(o *mcp.ClientOptions) {
	o.ResourceListChangedHandler = func(context.Context, *mcp.ResourceListChangedRequest) {
		c.up.mu.Lock()
		c.up.resOK = false
		c.up.mu.Unlock()
		c.m.relay.emit(upstreamEvent{conn: c, kind: eventResources})
	}
	o.PromptListChangedHandler = func(context.Context, *mcp.PromptListChangedRequest) {
		c.up.mu.Lock()
		c.up.promptsOK = false
		c.up.mu.Unlock()
		c.m.relay.emit(upstreamEvent{conn: c, kind: eventPrompts})
	}
	o.ResourceUpdatedHandler = func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
		if r.Params == nil {
			return
		}
		// Only for what we subscribed to on this server: another server's
		// URI is not this one's to announce.
		c.up.mu.Lock()
		subscribed := c.up.subs[r.Params.URI] != nil
		c.up.mu.Unlock()
		if subscribed {
			c.m.relay.emit(upstreamEvent{conn: c, kind: eventUpdated, uri: r.Params.URI})
		}
	}
	o.LoggingMessageHandler = func(_ context.Context, r *mcp.LoggingMessageRequest) {
		if r.Params != nil {
			c.m.relay.emit(upstreamEvent{conn: c, kind: eventLog, log: r.Params})
		}
	}
}

// caps returns the live session's server capabilities, or nil.
func (c *conn) caps() *mcp.ServerCapabilities {
	s := c.session()
	if s == nil {
		return nil
	}
	if r := s.InitializeResult(); r != nil {
		return r.Capabilities
	}
	return nil
}

// upstreamResources returns the server's resources and templates, listing
// them when they are not known (or relist is set).
func (c *conn) upstreamResources(ctx context.Context, relist bool) ([]*mcp.Resource, []*mcp.ResourceTemplate, error) {
	caps := c.caps()
	if caps == nil || caps.Resources == nil {
		return nil, nil, nil
	}
	c.up.mu.Lock()
	if c.up.resOK && !relist && fresh(c.up.resAt, caps.Resources.ListChanged) {
		r, t := c.up.resources, c.up.templates
		c.up.mu.Unlock()
		return r, t, nil
	}
	c.up.mu.Unlock()
	var res []*mcp.Resource
	var tmpl []*mcp.ResourceTemplate
	err := c.request(ctx, false, func(ctx context.Context, s *mcp.ClientSession) error {
		var err error
		res, err = pages.Collect(ctx, c.m.maxPages(), func(cursor string) ([]*mcp.Resource, string, error) {
			r, err := s.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.Resources, r.NextCursor, nil
		})
		if err != nil {
			return err
		}
		tmpl, err = pages.Collect(ctx, c.m.maxPages(), func(cursor string) ([]*mcp.ResourceTemplate, string, error) {
			r, err := s.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.ResourceTemplates, r.NextCursor, nil
		})
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	c.up.mu.Lock()
	// A hostile server may list null entries.
	res = slices.DeleteFunc(res, func(r *mcp.Resource) bool { return r == nil })
	tmpl = slices.DeleteFunc(tmpl, func(t *mcp.ResourceTemplate) bool { return t == nil })
	pats := urimatch.Compile(tmpl)
	c.up.resources, c.up.templates, c.up.patterns, c.up.resOK, c.up.resAt = res, tmpl, pats, true, time.Now()
	c.up.mu.Unlock()
	c.up.ui.NoteListing(res)
	return res, tmpl, nil
}

// upstreamPrompts returns the server's prompts, listing them when they are
// not known.
func (c *conn) upstreamPrompts(ctx context.Context) ([]*mcp.Prompt, error) {
	caps := c.caps()
	if caps == nil || caps.Prompts == nil {
		return nil, nil
	}
	c.up.mu.Lock()
	if c.up.promptsOK && fresh(c.up.promptsAt, caps.Prompts.ListChanged) {
		p := c.up.prompts
		c.up.mu.Unlock()
		return p, nil
	}
	c.up.mu.Unlock()
	var out []*mcp.Prompt
	err := c.request(ctx, false, func(ctx context.Context, s *mcp.ClientSession) error {
		var err error
		out, err = pages.Collect(ctx, c.m.maxPages(), func(cursor string) ([]*mcp.Prompt, string, error) {
			r, err := s.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.Prompts, r.NextCursor, nil
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	c.up.mu.Lock()
	out = slices.DeleteFunc(out, func(p *mcp.Prompt) bool { return p == nil })
	c.up.prompts, c.up.promptsOK, c.up.promptsAt = out, true, time.Now()
	c.up.mu.Unlock()
	return out, nil
}

// importsPrompt applies the server's Allow and Deny to a prompt's remote
// name, as to a tool's.
func (c *conn) importsPrompt(remote string) bool {
	if len(c.cfg.Allow) > 0 && !containsString(c.cfg.Allow, remote) {
		return false
	}
	return !containsString(c.cfg.Deny, remote)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// readResource reads a resource of the server, bounded like a call's
// result; the server's questions go to the export's caller of the
// resources/read, if any (relayRead).
func (c *conn) readResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	var out *mcp.ReadResourceResult
	var err error
	if rc := bridge.ReadCall(ctx); rc != nil {
		out, err = c.relayRead(ctx, rc, uri)
	} else {
		err = c.request(ctx, true, func(ctx context.Context, s *mcp.ClientSession) error {
			var err error
			out, err = s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			return err
		})
	}
	if err != nil {
		return nil, err
	}
	if limit := c.maxResultBytes(); limit > 0 {
		n := 0
		for _, rc := range out.Contents {
			if rc != nil {
				n += len(rc.URI) + len(rc.Text) + len(rc.Blob)*4/3 + len(rc.MIMEType)
			}
		}
		if n > limit {
			return nil, c.tooLarge()
		}
	}
	if err := c.checkUIPin(ctx, uri, out); err != nil {
		return nil, err
	}
	return out, nil
}

// getPrompt renders a prompt of the server; the server's questions go to
// the export's caller of the prompts/get, if any (relayPrompt).
func (c *conn) getPrompt(ctx context.Context, remote string, args map[string]string) (*mcp.GetPromptResult, error) {
	if pc := bridge.PromptCall(ctx); pc != nil {
		return c.relayPrompt(ctx, pc, remote, args)
	}
	var out *mcp.GetPromptResult
	err := c.request(ctx, true, func(ctx context.Context, s *mcp.ClientSession) error {
		var err error
		out, err = s.GetPrompt(ctx, &mcp.GetPromptParams{Name: remote, Arguments: args})
		return err
	})
	return out, err
}

// complete asks the server to complete an argument.
func (c *conn) complete(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	var out *mcp.CompleteResult
	err := c.request(ctx, true, func(ctx context.Context, s *mcp.ClientSession) error {
		var err error
		out, err = s.Complete(ctx, p)
		return err
	})
	return out, err
}

// subscribe takes one subscription to uri for the caller owner, subscribing
// upstream for the first. A subscriber that comes while the first's
// subscribe is in flight gets its answer: on a failure no subscription is
// held, none counted. A caller holds at most maxCallerSubscriptions distinct
// URIs of the server, the callers together maxServerSubscriptions: past
// either the subscribe is refused with run_limit_exceeded.
func (c *conn) subscribe(ctx context.Context, owner, uri string) error {
	c.up.mu.Lock()
	if c.up.subs == nil {
		c.up.subs, c.up.owners = map[string]*upSub{}, map[string]map[string]int{}
	}
	if held := c.up.owners[owner]; held[uri] == 0 && len(held) >= maxCallerSubscriptions {
		c.up.mu.Unlock()
		return &adapter.Error{Kind: adapter.KindRunLimitExceeded,
			Message: fmt.Sprintf("a caller may hold at most %d resource subscriptions on server %s", maxCallerSubscriptions, c.cfg.Name)}
	}
	if sub := c.up.subs[uri]; sub != nil {
		sub.n++
		c.hold(owner, uri)
		c.up.mu.Unlock()
		select {
		case <-sub.ready:
			if sub.err != nil { // a failed first took every count with it
				c.up.mu.Lock()
				c.release(owner, uri)
				c.up.mu.Unlock()
			}
			return sub.err
		case <-ctx.Done():
			c.up.mu.Lock()
			if c.up.subs[uri] == sub && sub.err == nil {
				sub.n-- // the first still holds its own
			}
			c.release(owner, uri)
			c.up.mu.Unlock()
			return ctx.Err()
		}
	}
	if len(c.up.subs) >= maxServerSubscriptions {
		c.up.mu.Unlock()
		return &adapter.Error{Kind: adapter.KindRunLimitExceeded,
			Message: fmt.Sprintf("server %s holds the most resource subscriptions it may (%d)", c.cfg.Name, maxServerSubscriptions)}
	}
	sub := &upSub{n: 1, ready: make(chan struct{})}
	c.up.subs[uri] = sub
	c.hold(owner, uri)
	c.up.mu.Unlock()
	err := c.request(ctx, false, func(ctx context.Context, s *mcp.ClientSession) error {
		return c.subscribeOn(ctx, s, uri)
	})
	c.up.mu.Lock()
	sub.err = err
	if err != nil {
		if c.up.subs[uri] == sub {
			delete(c.up.subs, uri)
		}
		c.release(owner, uri)
	}
	c.up.mu.Unlock()
	close(sub.ready)
	return err
}

// hold counts a hold of uri by owner; c.up.mu is held.
func (c *conn) hold(owner, uri string) {
	held := c.up.owners[owner]
	if held == nil {
		held = map[string]int{}
		c.up.owners[owner] = held
	}
	held[uri]++
}

// release drops a hold of uri by owner; c.up.mu is held.
func (c *conn) release(owner, uri string) {
	held := c.up.owners[owner]
	if held[uri] <= 1 {
		delete(held, uri)
	} else {
		held[uri]--
	}
	if len(held) == 0 {
		delete(c.up.owners, owner)
	}
}

// subscribeOn subscribes s to uri.
func (c *conn) subscribeOn(ctx context.Context, s *mcp.ClientSession, uri string) error {
	if r := s.InitializeResult(); r != nil && r.ProtocolVersion >= "2026-07-28" {
		// The go-sdk holds a subscriptions/listen stream open until
		// Unsubscribe: it does not return before.
		go func() { _ = s.Subscribe(c.bg, &mcp.SubscribeParams{URI: uri}) }()
		return nil
	}
	return s.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
}

// reconnected follows a new session that replaced a lost one: the lists
// may have changed meanwhile, and the subscriptions and the log level
// were the old session's.
func (c *conn) reconnected(s *mcp.ClientSession) {
	c.up.mu.Lock()
	c.up.resOK, c.up.promptsOK = false, false
	uris := make([]string, 0, len(c.up.subs))
	for uri, sub := range c.up.subs {
		select {
		case <-sub.ready:
			if sub.err == nil {
				uris = append(uris, uri)
			}
		default: // in flight: on the new session or failed
		}
	}
	level := c.up.level
	c.up.mu.Unlock()
	ctx, cancel := context.WithTimeout(c.bg, c.m.callTimeout(&c.cfg))
	defer cancel()
	for _, uri := range uris {
		if err := c.subscribeOn(ctx, s, uri); err != nil {
			c.m.logger.Warn("mcpadapter: subscribing again after a reconnection failed", "server", c.cfg.Name, "uri", uri, "error", err)
		}
	}
	if level != "" {
		_ = s.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level})
	}
	c.m.relay.emit(upstreamEvent{conn: c, kind: eventResources})
	c.m.relay.emit(upstreamEvent{conn: c, kind: eventPrompts})
}

// unsubscribe drops one subscription to uri of the caller owner,
// unsubscribing upstream with the last. It waits for a subscribe in flight:
// unsubscribing before it lands would leave the server subscribed.
func (c *conn) unsubscribe(ctx context.Context, owner, uri string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.m.callTimeout(&c.cfg))
	defer cancel()
	c.up.mu.Lock()
	sub := c.up.subs[uri]
	c.up.mu.Unlock()
	if sub == nil {
		return
	}
	select {
	case <-sub.ready:
	case <-ctx.Done():
	}
	c.up.mu.Lock()
	if c.up.subs[uri] != sub || sub.err != nil {
		c.up.mu.Unlock()
		return // failed: its counts went with it
	}
	sub.n--
	c.release(owner, uri)
	last := sub.n <= 0
	if last {
		delete(c.up.subs, uri)
	}
	c.up.mu.Unlock()
	if !last {
		return
	}
	if s := c.session(); s != nil {
		_ = s.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	}
}

// logLevels orders MCP log levels, most verbose first.
var logLevels = map[mcp.LoggingLevel]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

// quietest is the level asked of a server once no session asks for logs:
// the protocol has no "off".
const quietest mcp.LoggingLevel = "emergency"

// setLevel records the level export session ss asked ("" forgets it, as
// when it ends) and asks the server for the most verbose level its live
// sessions asked: the server's session is shared, and each export session
// filters the relay by its own level, so one session can neither silence
// the others nor hold the server at a level nobody asked for.
func (c *conn) setLevel(ctx context.Context, ss *mcp.ServerSession, level mcp.LoggingLevel) {
	if _, ok := logLevels[level]; !ok && level != "" {
		return
	}
	c.up.levelMu.Lock()
	defer c.up.levelMu.Unlock()
	c.up.mu.Lock()
	if level == "" {
		delete(c.up.levels, ss)
	} else {
		if c.up.levels == nil {
			c.up.levels = map[*mcp.ServerSession]mcp.LoggingLevel{}
		}
		c.up.levels[ss] = level
	}
	var want mcp.LoggingLevel
	for _, l := range c.up.levels {
		if want == "" || logLevels[l] < logLevels[want] {
			want = l
		}
	}
	changed := want != c.up.level
	c.up.level = want
	c.up.mu.Unlock()
	if !changed || c.caps() == nil || c.caps().Logging == nil {
		return
	}
	if want == "" {
		want = quietest
	}
	_ = c.request(ctx, false, func(ctx context.Context, s *mcp.ClientSession) error {
		return s.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: want})
	})
}

// request runs one request on a live session under the server's call
// timeout and maps a failure to an *adapter.Error, as a call's; with
// caller, on a call's session (callSession): an OAuth.PerCaller server's
// reads, prompts and completions are the caller's own, as its calls are.
func (c *conn) request(ctx context.Context, caller bool, fn func(context.Context, *mcp.ClientSession) error) error {
	timeout := c.m.callTimeout(&c.cfg)
	if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > timeout {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	session := c.ensure
	if caller {
		session = c.callSession
	}
	s, err := session(ctx)
	if se := (*oauth.SignInError)(nil); errors.As(err, &se) {
		return &adapter.Error{Kind: adapter.KindToolError, Message: se.Error(), Err: err}
	} else if err != nil {
		return &adapter.Error{Kind: adapter.KindConnection, Message: fmt.Sprintf("MCP server %q is unreachable", c.cfg.Name), Err: err}
	}
	w := &transport.Watch{}
	err = fn(transport.WithWatch(ctx, w), s)
	if err == nil {
		return nil
	}
	if w.TooLarge.Load() || c.frameTooLarge.Swap(false) {
		c.lost(s, err)
		return c.tooLarge()
	}
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return &adapter.Error{Kind: adapter.KindTimeout, Message: "the MCP server did not answer in time", Err: err}
		}
		return &adapter.Error{Kind: adapter.KindCancelled, Message: "the caller cancelled the request", Err: err}
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != transport.CodeRejected {
		msg := we.Message
		if len(msg) > 512 {
			msg = msg[:512] + "..."
		}
		kind := adapter.KindToolError
		if we.Code == jsonrpc.CodeInvalidParams || we.Code == -32002 || we.Code == jsonrpc.CodeMethodNotFound {
			kind = adapter.KindNotFound
		}
		return &adapter.Error{Kind: kind, Message: fmt.Sprintf("MCP server %q: %s", c.cfg.Name, msg), Err: err}
	}
	if transport.IsConnectionError(err) {
		c.lost(s, err)
	}
	return &adapter.Error{Kind: adapter.KindConnection, Message: fmt.Sprintf("MCP server %q is unreachable", c.cfg.Name), Err: err}
}

// templateMatches reports whether uri matches one of the server's listed
// templates.
func (c *conn) templateMatches(uri string) bool {
	c.up.mu.Lock()
	pats := c.up.patterns
	c.up.mu.Unlock()
	for _, p := range pats {
		if p.MatchString(uri) {
			return true
		}
	}
	return false
}
