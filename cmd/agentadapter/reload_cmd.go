package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentadapter/agentadapter/termtext"
)

// The reload control channel: each `serve` listens on a Unix socket of its
// own, named for its configuration file and its pid, in a directory only
// the user can enter; `agentadapter reload` asks every live socket of that
// file and prints each answer. A socket, unlike a pid file and a signal,
// cannot reach an unrelated process that reused a stale pid, carries the
// outcome back, and is confined by the file system to the user who runs
// the gateway. Replicas on other machines are reloaded there (or with
// SIGHUP).

// reloadRequest is one reload asked of the watch loop; the outcome goes
// to reply.
type reloadRequest struct {
	why   string
	reply chan reloadOutcome
}

// reloadOutcome is a gateway's answer to a reload.
type reloadOutcome struct {
	// PID is the gateway's process id.
	PID int `json:"pid"`
	// Outcome is "applied" (the new configuration is in force) or
	// "refused" (the configuration in force is kept, whole).
	Outcome string `json:"outcome"`
	// Section names what refused the reload, if known.
	Section string `json:"section,omitempty"`
	// Error says why a reload was refused, or which servers of an applied
	// one did not connect.
	Error string `json:"error,omitempty"`
}

// maxOutcome bounds an answer read from a socket.
const maxOutcome = 64 << 10

// controlDir is the directory of the control sockets, created private to
// the user; one that another user could enter or replace is refused.
func controlDir() (string, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	var dir string
	if base != "" && filepath.IsAbs(base) {
		dir = filepath.Join(base, "agentadapter")
	} else {
		dir = filepath.Join(os.TempDir(), "agentadapter-"+userTag())
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("reload socket directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("reload socket directory: %w", err)
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ownedByUs(fi) {
		return "", fmt.Errorf("reload socket directory %s: not a directory private to this user (mode %v); remove it", dir, fi.Mode())
	}
	return dir, nil
}

// socketPrefix names the sockets of one configuration file.
func socketPrefix(dir, configFile string) string {
	sum := sha256.Sum256([]byte(configFile))
	return filepath.Join(dir, hex.EncodeToString(sum[:8])+".")
}

// control is a serve's listening control socket.
type control struct {
	ln   net.Listener
	path string
	wg   sync.WaitGroup
	stop context.CancelFunc
}

// listenControl listens on this process's control socket for configFile;
// each connection asks one reload through requests.
func listenControl(ctx context.Context, configFile string, requests chan<- reloadRequest, log *slog.Logger) (*control, error) {
	dir, err := controlDir()
	if err != nil {
		return nil, err
	}
	path := socketPrefix(dir, configFile) + strconv.Itoa(os.Getpid()) + ".sock"
	_ = os.Remove(path) // a socket left by a process that had our pid
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("reload socket: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &control{ln: ln, path: path, stop: cancel}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		<-ctx.Done()
		ln.Close()
	}()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.wg.Add(1)
			go func() {
				defer c.wg.Done()
				defer conn.Close()
				c.answer(ctx, conn, requests, log)
			}()
		}
	}()
	return c, nil
}

// answer reads one "reload" line and writes the outcome as one JSON line.
func (c *control) answer(ctx context.Context, conn net.Conn, requests chan<- reloadRequest, log *slog.Logger) {
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(io.LimitReader(conn, 64)).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "reload" {
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	req := reloadRequest{why: "agentadapter reload", reply: make(chan reloadOutcome, 1)}
	select {
	case requests <- req:
	case <-ctx.Done():
		return
	}
	var out reloadOutcome
	select {
	case out = <-req.reply:
	case <-ctx.Done():
		return
	}
	_ = conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	b, _ := json.Marshal(out)
	if _, err := conn.Write(append(b, '\n')); err != nil {
		log.Debug("reload: the asker left before the answer", "err", err)
	}
}

// close stops listening, waits for the connections being answered and
// removes the socket.
func (c *control) close() {
	c.stop()
	c.wg.Wait()
	_ = os.Remove(c.path)
}

func newReloadCmd(e *env) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "reload",
		Short: "Ask the running gateways of this configuration to reload it",
		Long: `Ask every "agentadapter serve" of this configuration file running as you
on this machine to reload it, and print each one's answer:

  applied   the new configuration is in force, every section of it
  refused   the configuration in force is kept, whole; the reason says
            which section refused (a change of "store" or "listen" needs
            a restart; a bad file names its line)

serve reloads on SIGHUP and on this command; it reloads when the file
changes only with serve --watch. The gateways are reached through a Unix
socket in a directory private to you ($XDG_RUNTIME_DIR/agentadapter, else
the temporary directory); a replica on another machine is reloaded there.

Exit codes: 0 every gateway applied it; 1 no gateway is running, or one did
not answer; 2 a gateway refused it.`,
		Args: argsErr(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			file, err := e.configFile()
			if err != nil {
				return err
			}
			outs, err := askReload(c.Context(), file, timeout)
			if err != nil {
				return err
			}
			if e.jsonOut {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(outs); err != nil {
					return err
				}
			} else {
				for _, o := range outs {
					line := fmt.Sprintf("pid %d: %s", o.PID, o.Outcome)
					if o.Error != "" {
						line += ": " + termtext.Line(o.Error)
					}
					fmt.Fprintln(e.stdout, line)
				}
			}
			code := exitOK
			for _, o := range outs {
				switch {
				case o.Outcome == "refused":
					code = exitUsage
				case o.Outcome != "applied" && code == exitOK:
					code = exitFailure
				}
			}
			if code != exitOK {
				return &exitError{code: code, err: errors.New("")}
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 2*time.Minute, "how long to wait for each gateway's answer (new servers connect first)")
	return cmd
}

// configFile resolves the configuration file as loadConfig does, without
// reading it: a gateway asked to reload a broken file says why itself.
func (e *env) configFile() (string, error) {
	path := e.configPath
	if path == "" {
		var err error
		if path, err = findConfig(); err != nil {
			return "", err
		}
	}
	return filepath.Abs(path)
}

// askReload asks every control socket of file, in parallel, and returns
// their answers by pid. Sockets nobody listens on (a gateway that died) are
// removed.
func askReload(ctx context.Context, file string, timeout time.Duration) ([]reloadOutcome, error) {
	dir, err := controlDir()
	if err != nil {
		return nil, err
	}
	paths, err := filepath.Glob(socketPrefix(dir, file) + "*.sock")
	if err != nil {
		return nil, err
	}
	outs := make([]*reloadOutcome, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = askOne(ctx, p, timeout)
		}()
	}
	wg.Wait()
	var list []reloadOutcome
	for _, o := range outs {
		if o != nil {
			list = append(list, *o)
		}
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("no agentadapter serve of %s is running as this user here", termtext.Line(file))
	}
	sort.Slice(list, func(i, j int) bool { return list[i].PID < list[j].PID })
	return list, nil
}

// askOne asks one socket; nil means nobody listens there.
func askOne(ctx context.Context, path string, timeout time.Duration) *reloadOutcome {
	// <hash>.<pid>.sock
	parts := strings.Split(filepath.Base(path), ".")
	pid, _ := strconv.Atoi(parts[1])
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if staleSocket(err) {
			_ = os.Remove(path)
		}
		return nil
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if _, err := io.WriteString(conn, "reload\n"); err != nil {
		return &reloadOutcome{PID: pid, Outcome: "no answer", Error: err.Error()}
	}
	line, err := bufio.NewReader(io.LimitReader(conn, maxOutcome)).ReadBytes('\n')
	if err != nil {
		return &reloadOutcome{PID: pid, Outcome: "no answer", Error: err.Error()}
	}
	var out reloadOutcome
	if err := json.Unmarshal(line, &out); err != nil {
		return &reloadOutcome{PID: pid, Outcome: "no answer", Error: "unreadable answer"}
	}
	return &out
}
