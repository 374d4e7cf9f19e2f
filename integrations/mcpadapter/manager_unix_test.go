//go:build unix

package mcpadapter_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// These tests kill child processes by pid and look for zombies: unix only.

// gone reports whether no process (not even a zombie) has this pid.
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

func TestStdioKilledMidCall(t *testing.T) {
	e := newImportEnv(t, &mcpadapter.ManagerOptions{Reconnect: mcpadapter.ReconnectOptions{MinBackoff: 50 * time.Millisecond}})
	s := stdioHelper("tools")
	s.Trust = true // its idempotent hint is policy
	s.CallTimeout = 20 * time.Second
	if err := e.m.Connect(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	pid1 := pidOf(t, e)

	// A call that is not idempotent fails with a connection error.
	time.AfterFunc(300*time.Millisecond, func() { syscall.Kill(pid1, syscall.SIGKILL) })
	start := time.Now()
	_, err := e.call(t, context.Background(), "sleep", `{}`)
	if err == nil || err.Kind != adapter.KindConnection {
		t.Fatalf("err = %v, want connection", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the connection error came after %v; the call timeout is 20s", d)
	}
	if _, ok := adapter.ModelPayload(err); ok {
		t.Error("a connection error became a model payload")
	}
	waitUntil(t, "the killed child to be reaped", func() bool { return gone(pid1) })

	// The next call reconnects to a new process.
	pid2 := pidOf(t, e)
	if pid2 == pid1 {
		t.Fatalf("same pid %d after the kill", pid2)
	}

	// An idempotent call is retried once on a new process.
	time.AfterFunc(300*time.Millisecond, func() { syscall.Kill(pid2, syscall.SIGKILL) })
	res, err := e.call(t, context.Background(), "slow_idem", `{}`)
	if err != nil {
		t.Fatalf("idempotent call after a kill: %v", err)
	}
	if strings.Contains(res.Text(), strconv.Itoa(pid2)) || !strings.HasPrefix(res.Text(), "done by ") {
		t.Errorf("result %q, want one from a process other than %d", res.Text(), pid2)
	}
	pid3 := pidOf(t, e)
	if err := e.m.Close(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "Close to reap the child", func() bool { return gone(pid3) })
}

func TestStdioReconnectDisabled(t *testing.T) {
	e := newImportEnv(t, &mcpadapter.ManagerOptions{Reconnect: mcpadapter.ReconnectOptions{Disabled: true}})
	if err := e.m.Connect(context.Background(), stdioHelper("tools")); err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, e)
	syscall.Kill(pid, syscall.SIGKILL)
	waitUntil(t, "the server to be seen down", func() bool { return !e.m.Servers()[0].Connected })
	if st := e.m.Servers()[0]; st.Transport != "stdio" || st.Trusted || st.Reconnects != 0 || st.LastError == nil || st.LastErrorAt.IsZero() {
		t.Errorf("status of a killed server: %+v", st)
	}
	if _, err := e.call(t, context.Background(), "pid", `{}`); err == nil || err.Kind != adapter.KindConnection {
		t.Fatalf("err = %v, want connection", err)
	}
	if err := e.m.Reconnect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if pid2 := pidOf(t, e); pid2 == pid {
		t.Errorf("same pid after Reconnect")
	}
	// The last error is kept after the server recovers.
	if st := e.m.Servers()[0]; !st.Connected || st.Reconnects != 1 || st.LastError == nil {
		t.Errorf("status after Reconnect: %+v", st)
	}
}
