package sqlitestore

import "sync"

// waker tells the waiters of every Store open on one file, in this
// process, that a ticket changed; waiters in other processes poll.
type waker struct {
	mu   sync.Mutex
	ch   chan struct{}
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
		w = &waker{ch: make(chan struct{}), path: path}
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

// changed returns a channel closed at the next notify.
func (w *waker) changed() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ch
}

func (w *waker) notify() {
	w.mu.Lock()
	close(w.ch)
	w.ch = make(chan struct{})
	w.mu.Unlock()
}
