package export

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListTTL is the ttlMs the export puts on its list results (tools,
// prompts, resources, resource templates) and on server/discover: how long
// a client may reuse a list before asking again. Every change is announced
// by a list_changed notification to the clients that listen (a session
// client before 2026-07-28, a subscriptions/listen stream from it on),
// which drop their cached list on it (go-sdk's client does), and a call is
// always checked against the live registry. A stateless client that does
// not listen sees a change (a tool an operator accepted, a reload, an
// upstream's new tool) up to ListTTL late, and lists at most once per
// ListTTL: ten seconds keeps the first short enough for an operator
// waiting on it and the second a trickle. resources/read keeps the ttlMs
// its handler set (zero, immediately stale, if none).
const ListTTL = 10 * time.Second

// cacheHints returns the export's ServerOptions.SetCacheable: ListTTL on
// lists, and cacheScope "private" whenever the list may differ from one
// caller or endpoint to another: the caller proved an identity (policy may
// depend on it), or the export's Filter has a Func (a program selects the
// specs, as the gateway does per virtual server; two endpoints of one
// registry then list differently). Otherwise "public": every caller of the
// endpoint is served the same list. then, the caller's own SetCacheable
// (from Options.Configure), runs last and may override both.
func (s *Server) cacheHints(then func(context.Context, mcp.Request, *mcp.Cacheable)) func(context.Context, mcp.Request, *mcp.Cacheable) {
	return func(ctx context.Context, req mcp.Request, c *mcp.Cacheable) {
		if _, read := req.(*mcp.ReadResourceRequest); !read && c.TTLMs == 0 {
			c.TTLMs = int(ListTTL / time.Millisecond)
		}
		if c.CacheScope == "" {
			c.CacheScope = "public"
			if s.opts.Filter.Func != nil || verified(req) {
				c.CacheScope = "private"
			}
		}
		if then != nil {
			then(ctx, req, c)
		}
	}
}

// verified reports whether the request carries a verified bearer token.
func verified(req mcp.Request) bool {
	e := req.GetExtra()
	return e != nil && e.TokenInfo != nil
}

// allVersionsKey marks the context of a request [Server.Handler] serves
// statelessly: its endpoint serves the older versions too (with sessions,
// or, with HTTPOptions.Stateless, on temporary ones).
type allVersionsKey struct{}

// allVersions marks the requests h serves (see allVersionsKey).
func allVersions(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), allVersionsKey{}, true)))
	})
}

// discoverVersions returns a middleware correcting server/discover's
// supportedVersions: go-sdk lists what the transport of the request serves,
// which for a stateless HTTP request is 2026-07-28 alone, while the
// endpoint serves every version of the server (configured, the go-sdk's
// if none).
func discoverVersions(configured []string) mcp.Middleware {
	versions := slices.Clone(configured)
	if len(versions) == 0 {
		versions = mcp.SupportedProtocolVersions()
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method != "server/discover" || err != nil || ctx.Value(allVersionsKey{}) == nil {
				return res, err
			}
			if d, ok := res.(*mcp.DiscoverResult); ok {
				d.SupportedVersions = slices.Clone(versions)
			}
			return res, err
		}
	}
}
