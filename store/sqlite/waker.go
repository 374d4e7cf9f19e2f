package sqlitestore

import (
	"sync"

	"github.com/agentadapter/agentadapter/store/internal/ticketwait"
)

// waker tells the waiters of every Store open on one file, in this
// process, that a ticket changed; waiters in other processes poll.
type waker struct {
	*ticketwait.Waker
	refs int
	path string
}

var (
	wakersMu sync.Mutex
	wakers   = map[string]*waker{}
)

func wakerFor(path string) *waker {
	wakersMu.Lock()
	defer wakersMu.Unlock()
	w := wakers[path]
	if w == nil {
		w = &waker{Waker: ticketwait.NewWaker(), path: path}
		wakers[path] = w
	}
	w.refs++
	return w
}

func releaseWaker(w *waker) {
	wakersMu.Lock()
	defer wakersMu.Unlock()
	if w.refs--; w.refs == 0 {
		delete(wakers, w.path)
	}
}
