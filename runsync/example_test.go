package runsync_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/agentadapter/agentadapter/runsync"
)

func ExampleRun() {
	ctx := context.Background()
	n, err := runsync.Run(ctx, time.Second, func(ctx context.Context) (int, error) {
		return len("hello"), nil
	})
	fmt.Println(n, err)
	// Output: 5 <nil>
}

// A function that ignores its context is abandoned at the deadline.
func ExampleRun_timeout() {
	release := make(chan struct{})
	defer close(release)

	_, err := runsync.Run(context.Background(), 10*time.Millisecond, func(ctx context.Context) (string, error) {
		<-release // never looks at ctx
		return "too late", nil
	})
	fmt.Println(err)
	fmt.Println(errors.Is(err, context.DeadlineExceeded), errors.Is(err, runsync.ErrAbandoned))
	// Output:
	// runsync: call abandoned: context deadline exceeded
	// true true
}

// A server starts a goroutine per request; a deep, context-honouring call
// made from it runs on a worker whose stack has grown already.
func ExampleOnWorker() {
	done := make(chan struct{})
	go func() { // one request's goroutine
		defer close(done)
		out, err := runsync.OnWorker(context.Background(), func(ctx context.Context) (string, error) {
			return strings.ToUpper("answer"), ctx.Err()
		})
		fmt.Println(out, err)
	}()
	<-done
	// Output: ANSWER <nil>
}

func ExampleRecover() {
	_, err := runsync.Recover(context.Background(), func(ctx context.Context) (int, error) {
		var m map[string]int
		m["x"] = 1
		return 0, nil
	})
	var pe *runsync.PanicError
	if errors.As(err, &pe) {
		fmt.Println(pe) // the stack is in pe.Stack, not in the message
	}
	// Output: panic: assignment to entry in nil map
}

func ExampleGo() {
	ctx := context.Background()
	f := runsync.Go(ctx, func(ctx context.Context) (string, error) {
		return strings.ToUpper("done"), nil
	})
	// ... other work ...
	v, err := f.Await(ctx)
	fmt.Println(v, err)
	// Output: DONE <nil>
}

func words(text string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for w := range strings.FieldsSeq(text) {
			if !yield(w, nil) {
				return
			}
		}
	}
}

func ExampleChan() {
	ctx := context.Background()
	for it := range runsync.Chan(ctx, words("a stream of words"), 4) {
		fmt.Print(it.Value, ";")
	}
	fmt.Println()
	// Output: a;stream;of;words;
}

// Breaking out of the loop also stops the goroutine that Chan started.
func ExampleSeq() {
	ctx := context.Background()
	ch := runsync.Chan(ctx, words("one two three four"), 0)
	for w, err := range runsync.Seq(ctx, ch) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(w)
		if w == "two" {
			break
		}
	}
	// Output:
	// one
	// two
}

func ExampleParallel() {
	urls := []string{"a.example", "b.example", "c.example"}
	sizes, errs := runsync.Parallel(context.Background(), 2, urls, func(ctx context.Context, i int, url string) (int, error) {
		if url == "b.example" {
			return 0, errors.New("unreachable")
		}
		return len(url), nil
	})
	for i := range urls {
		fmt.Println(urls[i], sizes[i], errs[i])
	}
	// Output:
	// a.example 9 <nil>
	// b.example 0 unreachable
	// c.example 9 <nil>
}
