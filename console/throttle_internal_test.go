package console

import (
	"fmt"
	"testing"
	"time"
)

// A flood of addresses cannot grow the throttle's table without bound,
// and an address's wait grows with every wrong token past the first few.
func TestThrottleBounded(t *testing.T) {
	th := newThrottle(0)
	now := time.Unix(1e9, 0)
	for i := range 3 * maxThrottled {
		th.failed(fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), now)
	}
	if n := len(th.addrs); n > maxThrottled {
		t.Errorf("%d addresses kept, want at most %d", n, maxThrottled)
	}
	var waits []time.Duration
	for range DefaultSignInFailures + 4 {
		th.failed("192.0.2.1", now)
		waits = append(waits, th.wait("192.0.2.1", now))
	}
	for i := DefaultSignInFailures + 1; i < len(waits); i++ {
		if waits[i] <= waits[i-1] {
			t.Errorf("waits %v do not grow after %d failures", waits, DefaultSignInFailures)
			break
		}
	}
	if w := th.wait("192.0.2.1", now.Add(MaxSignInDelay+time.Second)); w != 0 {
		t.Errorf("still waiting %s after MaxSignInDelay", w)
	}
}
