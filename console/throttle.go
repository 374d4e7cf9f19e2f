package console

import (
	"fmt"
	"maps"
	"math"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Sign-in throttling defaults (see Options.SignInFailures).
const (
	// DefaultSignInFailures is how many wrong tokens a client address may
	// present at full speed.
	DefaultSignInFailures = 5
	// SignInDelay is the wait for one more attempt after the first
	// DefaultSignInFailures; it doubles with every further wrong token,
	// up to MaxSignInDelay.
	SignInDelay = 2 * time.Second
	// MaxSignInDelay bounds the wait between attempts.
	MaxSignInDelay = 15 * time.Minute
	// maxThrottled bounds the table of client addresses: a flood of
	// addresses evicts the longest-quiet ones first.
	maxThrottled = 4096
)

// throttle limits wrong tokens per client address, with a token bucket
// (golang.org/x/time/rate) per address whose refill slows with every
// failure. A right token resets the address. Only wrong tokens spend the
// bucket, but an address whose bucket is empty is refused before its
// token is checked, right or wrong: a guesser learns nothing while it
// waits.
type throttle struct {
	burst int // 0: off
	mu    sync.Mutex
	addrs map[string]*attempts
}

type attempts struct {
	lim   *rate.Limiter
	fails int
	seen  time.Time
}

func newThrottle(burst int) *throttle {
	switch {
	case burst == 0:
		burst = DefaultSignInFailures
	case burst < 0:
		burst = 0
	}
	return &throttle{burst: burst, addrs: map[string]*attempts{}}
}

// wait returns how long addr must wait before its next attempt; zero
// means it may try now.
func (t *throttle) wait(addr string, now time.Time) time.Duration {
	if t.burst == 0 {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	a, ok := t.addrs[addr]
	if !ok {
		return 0
	}
	a.seen = now
	tokens := a.lim.TokensAt(now)
	if tokens >= 1 {
		return 0
	}
	d := time.Duration((1 - tokens) / float64(a.lim.Limit()) * float64(time.Second))
	return max(d, time.Millisecond)
}

// failed counts a wrong token from addr.
func (t *throttle) failed(addr string, now time.Time) {
	if t.burst == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	a, ok := t.addrs[addr]
	if !ok {
		if len(t.addrs) >= maxThrottled {
			t.evict(now)
		}
		a = &attempts{lim: rate.NewLimiter(rate.Every(SignInDelay), t.burst)}
		t.addrs[addr] = a
	}
	a.seen = now
	a.fails++
	a.lim.AllowN(now, 1)
	if extra := a.fails - t.burst; extra > 0 {
		d := SignInDelay * time.Duration(math.Pow(2, float64(min(extra, 20))))
		a.lim.SetLimitAt(now, rate.Every(min(d, MaxSignInDelay)))
	}
}

// succeeded forgets addr's failures.
func (t *throttle) succeeded(addr string) {
	if t.burst == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.addrs, addr)
}

// evict drops the addresses whose buckets have refilled, and if that
// frees too little, the eighth quiet the longest (in one pass, so a flood
// costs a sort per maxThrottled/8 new addresses). Called with t.mu held.
func (t *throttle) evict(now time.Time) {
	for k, a := range t.addrs {
		if a.lim.TokensAt(now) >= float64(t.burst) {
			delete(t.addrs, k)
		}
	}
	if len(t.addrs) < maxThrottled {
		return
	}
	keys := slices.Collect(maps.Keys(t.addrs))
	slices.SortFunc(keys, func(a, b string) int { return t.addrs[a].seen.Compare(t.addrs[b].seen) })
	for _, k := range keys[:len(keys)/8] {
		delete(t.addrs, k)
	}
}

// throttledError is a sign-in refused before its token was checked.
type throttledError struct{ wait time.Duration }

func (e *throttledError) Error() string {
	return fmt.Sprintf("too many wrong tokens from this address; try again in %s", roughDuration(e.wait))
}

func (e *throttledError) retryAfter() string {
	return strconv.Itoa(int(math.Ceil(e.wait.Seconds())))
}

func (e *throttledError) write(w http.ResponseWriter) {
	w.Header().Set("Retry-After", e.retryAfter())
	http.Error(w, "console: "+e.Error(), http.StatusTooManyRequests)
}

// clientAddr is the address sign-ins are throttled by: the connection's
// peer, or, from a trusted proxy, the last address X-Forwarded-For names
// that is not itself a trusted proxy. IPv6 addresses count by their /64,
// which one host usually holds whole.
func (c *Console) clientAddr(r *http.Request) string {
	peer := remoteIP(r)
	ip := peer
	if c.trustedProxy(peer) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			h, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break
			}
			ip = h.Unmap()
			if !c.trustedProxy(ip) {
				break
			}
		}
	}
	if !ip.IsValid() {
		return r.RemoteAddr
	}
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// overTLS reports whether the browser reached the console over TLS: the
// connection is TLS, or a trusted proxy says so in X-Forwarded-Proto. A
// cookie set then is Secure.
func (c *Console) overTLS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	return c.trustedProxy(remoteIP(r)) && strings.EqualFold(strings.TrimSpace(firstValue(r.Header.Get("X-Forwarded-Proto"))), "https")
}

func (c *Console) trustedProxy(ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	for _, p := range c.opts.TrustedProxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

func remoteIP(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return ip.Unmap()
}

// firstValue is the first of a comma-separated header value (the proxy
// nearest the client's word comes first in X-Forwarded-Proto lists).
func firstValue(v string) string {
	first, _, _ := strings.Cut(v, ",")
	return first
}
