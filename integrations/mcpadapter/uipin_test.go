package mcpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

const appURI = "ui://stats/app.html"

// appUpstream is a go-sdk server of an MCP App: a ui:// resource whose
// content _meta.ui (CSP and all) and HTML body a test changes between
// reads, and a plain resource beside it.
type appUpstream struct {
	srv  *mcp.Server
	mu   sync.Mutex
	meta mcp.Meta
	body string
	// plain is the _meta of test://plain's content.
	plain mcp.Meta
}

func cspMeta(domains ...string) mcp.Meta {
	d := make([]any, len(domains))
	for i, s := range domains {
		d[i] = s
	}
	return mcp.Meta{"ui": map[string]any{"csp": map[string]any{"connectDomains": d, "resourceDomains": []any{}}, "prefersBorder": true}}
}

func newAppUpstream() *appUpstream {
	u := &appUpstream{srv: mcp.NewServer(&mcp.Implementation{Name: "app", Version: "v1"}, nil), meta: cspMeta("https://api.example.com"), body: "<html>v1</html>"}
	u.addApp(appURI)
	u.srv.AddResource(&mcp.Resource{URI: "test://plain", Name: "plain", MIMEType: "text/plain"}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		u.mu.Lock()
		defer u.mu.Unlock()
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: "plain", Meta: u.plain}}}, nil
	})
	return u
}

// addApp serves uri as the app (listed with the profile's mimeType).
func (u *appUpstream) addApp(uri string) {
	u.srv.AddResource(&mcp.Resource{URI: uri, Name: "app", MIMEType: "text/html;profile=mcp-app"}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		u.mu.Lock()
		defer u.mu.Unlock()
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/html;profile=mcp-app", Text: u.body, Meta: u.meta}}}, nil
	})
}

func (u *appUpstream) set(f func(u *appUpstream)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	f(u)
}

type uiFixture struct {
	m      *mcpadapter.Manager
	exec   *adapter.Executor
	ledger *adapter.MemoryLedger
	client *mcp.ClientSession
}

// uiExport imports srv into a Manager on store and serves its resources
// through an Exporter to a go-sdk client.
func uiExport(t *testing.T, srv mcpadapter.Upstream, mopts *mcpadapter.ManagerOptions) *uiFixture {
	t.Helper()
	ctx := context.Background()
	reg := registry.New()
	m := mcpadapter.NewManager(reg, mopts)
	t.Cleanup(func() { m.Close() })
	if err := m.Connect(ctx, srv); err != nil {
		t.Fatal(err)
	}
	led := adapter.NewMemoryLedger(100)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: led})
	t.Cleanup(func() { exec.Close() })
	exp, err := mcpadapter.NewExporter(reg, exec, &mcpadapter.ExportOptions{Upstreams: &mcpadapter.Upstreams{Manager: m}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exp.Close() })
	st, ct := mcp.NewInMemoryTransports()
	ss, err := exp.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &uiFixture{m: m, exec: exec, ledger: led, client: cs}
}

func (f *uiFixture) read(uri string) (*mcp.ReadResourceResult, error) {
	return f.client.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
}

// mustRead reads uri and fails the test unless it is served.
func (f *uiFixture) mustRead(t *testing.T, uri string) *mcp.ReadResourceResult {
	t.Helper()
	r, err := f.read(uri)
	if err != nil || len(r.Contents) != 1 {
		t.Fatalf("read %s = %+v, %v; want it served", uri, r, err)
	}
	return r
}

// refused checks that a read of uri is refused as quarantined.
func (f *uiFixture) refused(t *testing.T, uri string) {
	t.Helper()
	r, err := f.read(uri)
	if err == nil {
		t.Fatalf("read %s served %+v; want it refused as quarantined", uri, r)
	}
	if _, kind := rpcKind(t, err); kind != string(adapter.KindGuardrailBlocked) || !strings.Contains(err.Error(), "quarantined") {
		t.Fatalf("read %s: %v (kind %q); want guardrail_blocked, quarantined", uri, err, kind)
	}
}

// quarantine returns the quarantine of uri listed by the manager.
func (f *uiFixture) quarantine(t *testing.T, uri string) mcpadapter.Quarantine {
	t.Helper()
	for _, q := range f.m.Quarantined() {
		if q.Tool == uri {
			if q.Resource == nil || q.Resource.URI != uri || q.Definition != nil || q.Got != q.Resource.Hash() {
				t.Fatalf("quarantine of %s = %+v; want its envelope, hashed", uri, q)
			}
			return q
		}
	}
	qs := f.m.Quarantined()
	t.Fatalf("%s is not listed in Quarantined() (%d entries, the first %+v)", uri, len(qs), qs[:min(len(qs), 2)])
	return mcpadapter.Quarantine{}
}

func (f *uiFixture) notQuarantined(t *testing.T) {
	t.Helper()
	if qs := f.m.Quarantined(); len(qs) != 0 {
		t.Fatalf("Quarantined() = %+v; want none", qs)
	}
}

// An MCP App's ui:// resource is pinned on its first read; a read whose
// widened CSP changed the envelope is refused and listed until the
// reviewed hash is accepted, while the HTML body and plain resources
// change freely.
func TestUIResourcePinned(t *testing.T) {
	up := newAppUpstream()
	store := mcpadapter.NewMemoryPinStore(nil)
	var reported []mcpadapter.Quarantine
	var mu sync.Mutex
	f := uiExport(t, primServer(t, "app", up.srv, mcpadapter.Upstream{Trust: true}), &mcpadapter.ManagerOptions{PinStore: store,
		OnQuarantine: func(q mcpadapter.Quarantine) { mu.Lock(); reported = append(reported, q); mu.Unlock() }})

	r := f.mustRead(t, appURI)
	if !jsonEq(r.Contents[0].Meta, cspMeta("https://api.example.com")) || r.Contents[0].Text != "<html>v1</html>" {
		t.Fatalf("first read = %+v; want the upstream's content and _meta as is", r.Contents[0])
	}
	pinned, ok, _ := store.Get(context.Background(), mcpadapter.PinKey("app", appURI))
	if !ok || !strings.HasPrefix(pinned, "sha256:") {
		t.Fatalf("pin of %s = %q, %v; want one after the first read", appURI, pinned, ok)
	}

	// A new build of the app: the body is not pinned.
	up.set(func(u *appUpstream) { u.body = "<html>v2</html>" })
	if r := f.mustRead(t, appURI); r.Contents[0].Text != "<html>v2</html>" {
		t.Fatalf("read after a new body = %q; want v2", r.Contents[0].Text)
	}
	f.notQuarantined(t)

	// The server widens connectDomains.
	up.set(func(u *appUpstream) { u.meta = cspMeta("https://api.example.com", "https://evil.example") })
	f.refused(t, appURI)
	f.refused(t, appURI)
	q := f.quarantine(t, appURI)
	if q.Server != "app" || q.Pinned != pinned || q.Got == pinned || !jsonEq(q.Resource.Contents[0].Meta, cspMeta("https://api.example.com", "https://evil.example")) {
		t.Fatalf("quarantine = %+v; want pinned %s, the widened CSP", q, pinned)
	}
	mu.Lock()
	if len(reported) != 1 || reported[0].Got != q.Got {
		t.Errorf("OnQuarantine saw %+v; want the change once", reported)
	}
	mu.Unlock()

	// A plain resource is not pinned: its _meta changes freely.
	up.set(func(u *appUpstream) { u.plain = mcp.Meta{"x": 1} })
	f.mustRead(t, "test://plain")
	up.set(func(u *appUpstream) { u.plain = mcp.Meta{"x": 2} })
	if r := f.mustRead(t, "test://plain"); !jsonEq(r.Contents[0].Meta, mcp.Meta{"x": 2}) {
		t.Fatalf("test://plain _meta = %v", r.Contents[0].Meta)
	}

	// The wrong hash (the pinned one, or one reviewed before another
	// change) accepts nothing.
	for _, h := range []string{"", pinned, "sha256:00"} {
		if err := f.m.Accept("app", appURI, h); !errors.Is(err, mcpadapter.ErrDefinitionChanged) {
			t.Fatalf("Accept(%q) = %v; want ErrDefinitionChanged", h, err)
		}
	}
	f.refused(t, appURI)
	f.quarantine(t, appURI)

	if err := f.m.Accept("app", appURI, q.Got); err != nil {
		t.Fatal(err)
	}
	if r := f.mustRead(t, appURI); !jsonEq(r.Contents[0].Meta, cspMeta("https://api.example.com", "https://evil.example")) {
		t.Fatalf("read after Accept: _meta %v; want the accepted CSP as is", r.Contents[0].Meta)
	}
	f.notQuarantined(t)
	if p, _, _ := store.Get(context.Background(), mcpadapter.PinKey("app", appURI)); p != q.Got {
		t.Fatalf("pin after Accept = %s, want %s", p, q.Got)
	}
	if err := f.m.Accept("app", appURI, q.Got); err == nil {
		t.Fatal("Accept of a resource no longer quarantined succeeded")
	}

	// Back to the first CSP: another change, refused again.
	up.set(func(u *appUpstream) { u.meta = cspMeta("https://api.example.com") })
	f.refused(t, appURI)

	// Each read is one ledger record, the refused ones guardrail_blocked.
	if err := f.exec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var outcomes []string
	for _, rec := range f.ledger.Records() {
		if rec.Tool == "resources/read" && strings.Contains(string(rec.Args), "ui://") {
			outcomes = append(outcomes, rec.Outcome)
		}
	}
	want := "ok ok guardrail_blocked guardrail_blocked guardrail_blocked ok guardrail_blocked"
	if got := strings.Join(outcomes, " "); got != want {
		t.Fatalf("ledger outcomes of the ui:// reads: %s; want %s", got, want)
	}
}

// The pins of ui:// resources are kept by the PinStore: a manager of a
// later run refuses an envelope that changed meanwhile, and one whose
// listing entry changed.
func TestUIResourcePinStore(t *testing.T) {
	up := newAppUpstream()
	store := mcpadapter.NewMemoryPinStore(nil)
	first := uiExport(t, primServer(t, "app", up.srv, mcpadapter.Upstream{Trust: true}), &mcpadapter.ManagerOptions{PinStore: store})
	first.mustRead(t, appURI)
	first.m.Close()

	up.set(func(u *appUpstream) { u.meta = cspMeta("*") })
	next := uiExport(t, primServer(t, "app", up.srv, mcpadapter.Upstream{Trust: true}), &mcpadapter.ManagerOptions{PinStore: store})
	next.refused(t, appURI)
	q := next.quarantine(t, appURI)
	if err := next.m.Accept("app", appURI, q.Got); err != nil {
		t.Fatal(err)
	}
	next.mustRead(t, appURI)

	// The listing's entry is part of the envelope: a server relisting the
	// app with another mimeType changes it.
	up.srv.RemoveResources(appURI)
	up.srv.AddResource(&mcp.Resource{URI: appURI, Name: "app", MIMEType: "text/html"}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/html;profile=mcp-app", Text: "x", Meta: cspMeta("*")}}}, nil
	})
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := next.read(appURI); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a changed listing entry still served after 5s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	next.refused(t, appURI)
	if q := next.quarantine(t, appURI); q.Resource.Listed == nil || q.Resource.Listed.MIMEType != "text/html" {
		t.Fatalf("quarantined envelope = %+v; want the new listing entry", q.Resource)
	}
}

// A ui:// resource an untrusted server adds after its first listing waits
// for review, as its new tools do; a trusted server's is pinned on use.
func TestUIResourceNewQuarantined(t *testing.T) {
	for _, trust := range []bool{false, true} {
		up := newAppUpstream()
		f := uiExport(t, primServer(t, "app", up.srv, mcpadapter.Upstream{Trust: trust}), nil)
		f.mustRead(t, appURI) // first listing: pinned on first use
		up.addApp("ui://stats/new.html")
		// Until the upstream's list_changed reaches the manager, no server
		// owns the URI.
		deadline := time.Now().Add(5 * time.Second)
		for {
			_, err := f.read("ui://stats/new.html")
			if err == nil {
				break
			}
			if _, kind := rpcKind(t, err); kind != string(adapter.KindNotFound) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the new resource is not found after 5s")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if trust {
			f.mustRead(t, "ui://stats/new.html")
			f.notQuarantined(t)
			continue
		}
		f.refused(t, "ui://stats/new.html")
		q := f.quarantine(t, "ui://stats/new.html")
		if q.Pinned != "" {
			t.Fatalf("new resource's quarantine pinned %q; want none", q.Pinned)
		}
		if err := f.m.Accept("app", "ui://stats/new.html", q.Got); err != nil {
			t.Fatal(err)
		}
		f.mustRead(t, "ui://stats/new.html")
		f.notQuarantined(t)
	}
}

// A hostile server's envelope cannot hide in what the hash skips: the
// URI scheme's case and a content's own URI are pinned too.
func TestUIResourceEnvelopeHash(t *testing.T) {
	base := mcpadapter.ResourceEnvelope{URI: appURI, Contents: []mcpadapter.EnvelopePart{{URI: appURI, MIMEType: "text/html;profile=mcp-app", Meta: cspMeta("a")}}}
	h := base.Hash()
	for name, e := range map[string]mcpadapter.ResourceEnvelope{
		"csp":      {URI: appURI, Contents: []mcpadapter.EnvelopePart{{URI: appURI, MIMEType: "text/html;profile=mcp-app", Meta: cspMeta("a", "b")}}},
		"mimeType": {URI: appURI, Contents: []mcpadapter.EnvelopePart{{URI: appURI, MIMEType: "text/html", Meta: cspMeta("a")}}},
		"content":  {URI: appURI, Contents: []mcpadapter.EnvelopePart{{URI: "ui://other", MIMEType: "text/html;profile=mcp-app", Meta: cspMeta("a")}}},
		"listed":   {URI: appURI, Listed: &mcpadapter.EnvelopePart{MIMEType: "text/html"}, Contents: base.Contents},
		"twice":    {URI: appURI, Contents: append(append([]mcpadapter.EnvelopePart{}, base.Contents...), base.Contents...)},
	} {
		if e.Hash() == h {
			t.Errorf("%s: changed envelope hashes as the pinned one", name)
		}
	}
	// Key order does not matter: the JSON is canonical.
	var m1, m2 mcp.Meta
	json.Unmarshal([]byte(`{"ui":{"csp":{"connectDomains":["a"],"resourceDomains":[]},"prefersBorder":true}}`), &m1)
	json.Unmarshal([]byte(`{"ui":{"prefersBorder":true,"csp":{"resourceDomains":[],"connectDomains":["a"]}}}`), &m2)
	a := mcpadapter.ResourceEnvelope{URI: appURI, Contents: []mcpadapter.EnvelopePart{{Meta: m1}}}
	b := mcpadapter.ResourceEnvelope{URI: appURI, Contents: []mcpadapter.EnvelopePart{{Meta: m2}}}
	if a.Hash() != b.Hash() {
		t.Error("the same _meta in another key order hashes differently")
	}
}

// The npm MCP Apps server's ui:// resource reads byte-identical through
// the export as directly, and is pinned (its mimeType; it sends no
// _meta).
func TestUIResourceSystemMonitor(t *testing.T) {
	const bin = "mcp-system-monitor-server"
	direct := startRaw(t, testpeers.Command(t, bin, "--stdio"))
	var lr struct {
		Resources []struct {
			URI string `json:"uri"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(direct.call("resources/list", map[string]any{}), &lr); err != nil {
		t.Fatal(err)
	}
	var uri string
	for _, r := range lr.Resources {
		if strings.HasPrefix(r.URI, "ui://") {
			uri = r.URI
		}
	}
	if uri == "" {
		t.Fatalf("%s lists no ui:// resource: %+v", bin, lr)
	}
	want := direct.call("resources/read", map[string]any{"uri": uri})

	cmd := testpeers.Command(t, bin, "--stdio")
	reg := registry.New()
	store := mcpadapter.NewMemoryPinStore(nil)
	m := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{PinStore: store})
	t.Cleanup(func() { m.Close() })
	if err := m.Connect(context.Background(), mcpadapter.Upstream{Name: "monitor", Command: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env,
		ConnectTimeout: time.Minute, CallTimeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	exec := adapter.NewExecutor(reg, nil)
	t.Cleanup(func() { exec.Close() })
	exp, err := mcpadapter.NewExporter(reg, exec, &mcpadapter.ExportOptions{Upstreams: &mcpadapter.Upstreams{Manager: m}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exp.Close() })
	p := rawOver(t, exp)
	for i := 0; i < 2; i++ {
		got := p.call("resources/read", map[string]any{"uri": uri})
		// The same JSON values: go-sdk escapes <, > and & where Node
		// does not.
		if !jsonEqual(contentsOf(t, got), contentsOf(t, want)) {
			t.Fatalf("read %d through the export:\n%.300s\nwant (direct):\n%.300s", i, got, want)
		}
	}
	if _, ok, _ := store.Get(context.Background(), mcpadapter.PinKey("monitor", uri)); !ok {
		t.Fatalf("%s is not pinned after its read", uri)
	}
	if qs := m.Quarantined(); len(qs) != 0 {
		t.Fatalf("Quarantined() = %+v", qs)
	}
}

// contentsOf returns the raw bytes of a read result's contents (the
// result's own _meta and cache hints are the export's).
func contentsOf(t *testing.T, result json.RawMessage) json.RawMessage {
	t.Helper()
	var r struct {
		Contents json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(result, &r); err != nil || len(r.Contents) == 0 {
		t.Fatalf("read result %.200s: %v", result, err)
	}
	return r.Contents
}

func jsonEq(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	var gx, gy any
	json.Unmarshal(x, &gx)
	json.Unmarshal(y, &gy)
	x, _ = json.Marshal(gx)
	y, _ = json.Marshal(gy)
	return bytes.Equal(x, y)
}

// rawOver serves exp over a pipe and returns a raw peer talking to it; the
// session ends with the test.
func rawOver(t *testing.T, exp *mcpadapter.Exporter) *rawPeer {
	t.Helper()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- exp.Serve(ctx, &mcp.IOTransport{Reader: sr, Writer: sw}) }()
	t.Cleanup(func() {
		cancel()
		cw.Close()
		cr.Close()
		<-done
	})
	p := newRawPeer(t, cw, cr)
	p.initialize()
	return p
}

// templateApp is a go-sdk server with a ui:// template, ui://t/{id}, whose
// every URI reads as an app, and meta its contents' _meta.
func templateApp(meta *mcp.Meta, mu *sync.Mutex) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "app", Version: "v1"}, nil)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "ui://t/{id}", Name: "t"}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		mu.Lock()
		defer mu.Unlock()
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/html;profile=mcp-app", Text: "x", Meta: *meta}}}, nil
	})
	return srv
}

// waitOwned waits until a read of uri is no longer not_found: the
// upstream's list_changed reached the manager.
func (f *uiFixture) waitOwned(t *testing.T, uri string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := f.read(uri)
		if err == nil {
			return
		}
		if _, kind := rpcKind(t, err); kind != string(adapter.KindNotFound) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is not found after 5s", uri)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A caller reading URI after URI of a ui:// template pins nothing and
// keeps nothing: only what the server lists or its tools name is pinned.
// 1100 such reads, in this run and in the next on the same store, leave no
// pin, no quarantine and no report, and a ui:// resource the server lists
// afterwards is still pinned (trusted server) or held for review and
// accepted (untrusted). Before, the reads took the server's 1024 pins (or
// its 256 quarantines), every pin persisted, and the listed resource was
// refused until a restart (or never shown for review).
func TestUITemplateReadsPinNothing(t *testing.T) {
	const listed = "ui://apps/listed.html" // not the template's
	for _, trust := range []bool{true, false} {
		t.Run(fmt.Sprintf("trust=%v", trust), func(t *testing.T) {
			var mu sync.Mutex
			meta := cspMeta("https://api.example.com")
			srv := templateApp(&meta, &mu)
			store := mcpadapter.NewMemoryPinStore(nil)
			var reports []mcpadapter.Quarantine
			// run connects a manager on store and reads 1100 template URIs
			// from `from`; check says how they went, wantPins being the pins
			// there were before.
			run := func(from, wantPins int) (f *uiFixture, check func()) {
				mu.Lock()
				before := len(reports)
				mu.Unlock()
				f = uiExport(t, primServer(t, "app", srv, mcpadapter.Upstream{Trust: trust}), &mcpadapter.ManagerOptions{PinStore: store,
					OnQuarantine: func(q mcpadapter.Quarantine) { mu.Lock(); reports = append(reports, q); mu.Unlock() }})
				if _, err := f.client.ListResources(context.Background(), nil); err != nil {
					t.Fatal(err)
				}
				var bad []string
				for i := from; i < from+1100; i++ {
					uri := fmt.Sprintf("ui://t/%d", i)
					r, err := f.read(uri)
					switch {
					case trust && (err != nil || len(r.Contents) != 1 || !jsonEq(r.Contents[0].Meta, meta)):
						bad = append(bad, fmt.Sprintf("trusted server's template read %s = %+v, %v; want it served as is", uri, r, err))
					case !trust && err == nil:
						bad = append(bad, fmt.Sprintf("untrusted server's unlisted %s served; want it refused", uri))
					case !trust:
						if _, kind := rpcKind(t, err); kind != string(adapter.KindGuardrailBlocked) || !strings.Contains(err.Error(), "lists") {
							bad = append(bad, fmt.Sprintf("read %s: %v (kind %q); want guardrail_blocked, saying it is not listed", uri, err, kind))
						}
					}
				}
				pins := len(f.m.Pins())
				mu.Lock()
				n := len(reports) - before
				mu.Unlock()
				qs := len(f.m.Quarantined())
				return f, func() {
					t.Helper()
					if len(bad) > 0 {
						t.Errorf("%d of 1100 template reads went wrong, the first: %s", len(bad), bad[0])
					}
					if pins != wantPins || qs != 0 || n != 0 {
						t.Errorf("after 1100 template reads: %d pins, %d quarantined, %d reports; want %d, 0, 0", pins, qs, n, wantPins)
					}
				}
			}
			f, check := run(0, 0)

			// The server lists a new app: not locked out by the reads.
			srv.AddResource(&mcp.Resource{URI: listed, Name: "listed", MIMEType: "text/html;profile=mcp-app"}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/html;profile=mcp-app", Text: "app", Meta: cspMeta("https://api.example.com")}}}, nil
			})
			f.waitOwned(t, listed)
			if !trust {
				f.refused(t, listed)
				q := f.quarantine(t, listed)
				mu.Lock()
				last := ""
				if len(reports) > 0 {
					last = reports[len(reports)-1].Tool
				}
				mu.Unlock()
				if q.Pinned != "" || last != listed {
					t.Fatalf("new listed resource: quarantine %+v, last report %q; want it held as new, reported", q, last)
				}
				if err := f.m.Accept("app", listed, q.Got); err != nil {
					t.Fatal(err)
				}
			}
			f.mustRead(t, listed)
			f.notQuarantined(t)
			if _, ok, _ := store.Get(context.Background(), mcpadapter.PinKey("app", listed)); !ok {
				t.Fatalf("%s is not pinned after its read", listed)
			}
			f.m.Close()
			check()

			// A later run on the same store: its reads add no pin either.
			next, check := run(1100, 1)
			next.mustRead(t, listed)
			if pins := next.m.Pins(); len(pins) != 1 {
				t.Fatalf("%d pins after the second run; want only %s's", len(pins), listed)
			}
			check()
		})
	}
}

func firstKey(m map[string]string) string {
	for k := range m {
		return k
	}
	return ""
}

// A ui:// URI a served tool names in _meta.ui.resourceUri is the app of a
// reviewed tool: pinned on first read even when only a template serves it
// and the server is not trusted, and a widened CSP is quarantined. A tool
// the import does not serve (denied) names nothing.
func TestUITemplateNamedByTool(t *testing.T) {
	const named, denied = "ui://t/app", "ui://t/denied"
	for _, trust := range []bool{true, false} {
		t.Run(fmt.Sprintf("trust=%v", trust), func(t *testing.T) {
			var mu sync.Mutex
			meta := cspMeta("https://api.example.com")
			srv := templateApp(&meta, &mu)
			// A served tool naming the URI in another shape names nothing.
			for name, uri := range map[string]any{"show": named, "hidden": denied, "odd": []any{denied}} {
				srv.AddTool(&mcp.Tool{Name: name, InputSchema: impSchema(`{"type":"object"}`), Meta: mcp.Meta{"ui": map[string]any{"resourceUri": uri}}},
					func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						return &mcp.CallToolResult{}, nil
					})
			}
			store := mcpadapter.NewMemoryPinStore(nil)
			f := uiExport(t, primServer(t, "app", srv, mcpadapter.Upstream{Trust: trust, Deny: []string{"hidden"}}), &mcpadapter.ManagerOptions{PinStore: store})
			f.mustRead(t, named)
			pinned, ok, _ := store.Get(context.Background(), mcpadapter.PinKey("app", named))
			if !ok {
				t.Fatalf("%s, named by a served tool, is not pinned after its read", named)
			}
			if trust {
				f.mustRead(t, denied)
			} else {
				f.read(denied) // refused: checked by TestUITemplateReadsPinNothing
			}
			if _, ok, _ := store.Get(context.Background(), mcpadapter.PinKey("app", denied)); ok {
				t.Fatalf("%s, named only by a denied tool, was pinned", denied)
			}
			mu.Lock()
			meta = cspMeta("https://api.example.com", "https://evil.example")
			mu.Unlock()
			f.refused(t, named)
			if q := f.quarantine(t, named); q.Pinned != pinned {
				t.Fatalf("quarantine of %s = %+v; want pinned %s", named, q, pinned)
			}
		})
	}
}

// A hostile server listing ui:// resource after ui:// resource cannot
// grow the pin store or the quarantines without bound: a trusted server's
// reads stop pinning at 1024 URIs, and an untrusted server's new URIs are
// refused, kept (and reported) at most 256 times.
func TestUIResourceFlood(t *testing.T) {
	addApps := func(srv *mcp.Server, n int) {
		h := func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/html;profile=mcp-app", Text: "x"}}}, nil
		}
		for i := range n {
			srv.AddResource(&mcp.Resource{URI: fmt.Sprintf("ui://l/%d", i), Name: "l", MIMEType: "text/html;profile=mcp-app"}, h)
		}
	}
	for _, trust := range []bool{true, false} {
		srv := mcp.NewServer(&mcp.Implementation{Name: "app", Version: "v1"}, nil)
		srv.AddResource(&mcp.Resource{URI: "test://plain", Name: "plain"}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "x"}}}, nil
		})
		n := 1100
		if trust {
			addApps(srv, n)
		}
		store := mcpadapter.NewMemoryPinStore(nil)
		var reports int
		var mu sync.Mutex
		f := uiExport(t, primServer(t, "app", srv, mcpadapter.Upstream{Trust: trust}), &mcpadapter.ManagerOptions{PinStore: store,
			OnQuarantine: func(mcpadapter.Quarantine) { mu.Lock(); reports++; mu.Unlock() }})
		if !trust {
			// The first listing has no ui:// resource; the apps come after.
			if _, err := f.client.ListResources(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			n = 300
			addApps(srv, n)
			f.waitOwned(t, fmt.Sprintf("ui://l/%d", n-1))
		}
		served := 0
		for i := range n {
			if _, err := f.read(fmt.Sprintf("ui://l/%d", i)); err == nil {
				served++
			} else if _, kind := rpcKind(t, err); kind != string(adapter.KindGuardrailBlocked) {
				t.Fatalf("read %d: %v; want guardrail_blocked", i, err)
			}
		}
		pins := len(f.m.Pins())
		mu.Lock()
		got := reports
		mu.Unlock()
		if trust && (served != 1024 || pins != 1024 || got != 0) {
			t.Errorf("trusted: %d served, %d pins, %d reports; want 1024, 1024, 0", served, pins, got)
		}
		if !trust && (served != 0 || pins != 0 || got != 256 || len(f.m.Quarantined()) != 256) {
			t.Errorf("untrusted: %d served, %d pins, %d reports, %d quarantined; want 0, 0, 256, 256", served, pins, got, len(f.m.Quarantined()))
		}
	}
}
