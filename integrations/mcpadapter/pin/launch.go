package pin

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// ErrLaunchChanged is wrapped by the error of a launch accept whose hash
// is not the launch's now: the command, its file, an argument, an
// environment value or the directory changed after the operator reviewed
// it.
var ErrLaunchChanged = errors.New("mcpadapter: the launch changed since you reviewed it; review again")

// Launch is what starting a stdio server runs, as an operator reviews it
// and as it is pinned ([Launch.Hash] under [LaunchKey]): a config edit
// that changes any of it proposes a new launch, it does not run one.
// Environment values are kept as hashes only, so a Launch can be shown
// and stored without its secrets.
type Launch struct {
	// Command is the command as configured.
	Command string `json:"command"`
	// Path is the file that runs: Command resolved through PATH (or
	// against Dir), symbolic links followed.
	Path string `json:"path"`
	// FileHash is the SHA-256 of Path's content, "sha256:<hex>".
	FileHash string   `json:"file_sha256"`
	Args     []string `json:"args,omitempty"`
	// Env are the variables the configuration sets (not those inherited),
	// ordered by name.
	Env []LaunchEnv `json:"env,omitempty"`
	// Dir is the working directory; empty is the gateway's.
	Dir string `json:"cwd,omitempty"`
}

// LaunchEnv is one environment variable of a [Launch]: its name and the
// SHA-256 of its value.
type LaunchEnv struct {
	Name      string `json:"name"`
	ValueHash string `json:"value_sha256"`
}

// LaunchKey is the key of a server's launch pin in a [Store]. It
// cannot collide with a tool's [Key], which always holds a '/'
// after a server name (server names never hold a ':').
func LaunchKey(server string) string { return "launch:" + server }

// maxLaunchFile bounds the bytes of a command's file hashed for its pin
// (a runtime such as node is tens of megabytes; a larger file is refused
// rather than read without end, e.g. a device).
const maxLaunchFile = 1 << 30

// NewLaunch describes the launch of command with args, the environment
// variables env sets and the working directory dir, resolving command as
// os/exec will and hashing the file it names. It fails when the command
// cannot be found or read.
func NewLaunch(command string, args []string, env map[string]string, dir string) (*Launch, error) {
	path, err := resolveCommand(command, dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	sum, err := hashFile(path)
	if err != nil {
		return nil, err
	}
	l := &Launch{Command: command, Path: path, FileHash: sum, Args: slices.Clone(args), Dir: dir}
	for _, k := range sortedMapKeys(env) {
		h := sha256.Sum256([]byte(env[k]))
		l.Env = append(l.Env, LaunchEnv{Name: k, ValueHash: "sha256:" + hex.EncodeToString(h[:])})
	}
	return l, nil
}

func resolveCommand(command, dir string) (string, error) {
	if strings.ContainsRune(command, os.PathSeparator) || strings.ContainsRune(command, '/') {
		p := command
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p) // os/exec starts a relative path in Dir
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("mcpadapter: command %q: %w", command, err)
		}
		return abs, nil
	}
	p, err := exec.LookPath(command)
	if err != nil {
		return "", fmt.Errorf("mcpadapter: command %q not found in PATH", command)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("mcpadapter: command %q: %w", command, err)
	}
	return abs, nil
}

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("mcpadapter: reading the command's file: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("mcpadapter: the command %s is not a regular file", path)
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxLaunchFile+1))
	if err != nil {
		return "", fmt.Errorf("mcpadapter: reading the command's file: %w", err)
	}
	if n > maxLaunchFile {
		return "", fmt.Errorf("mcpadapter: the command %s is larger than %d bytes", path, maxLaunchFile)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Hash returns the launch's pin: a SHA-256 over its JSON encoding (fields
// in declaration order, variables ordered by name), "sha256:<hex>".
func (l *Launch) Hash() string {
	b, err := json.Marshal(l)
	if err != nil {
		// Unreachable: a Launch is strings only.
		b = fmt.Appendf(nil, "%#v", l)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ShellWrapper names the shell or runner the launch hands a command
// string to ("sh -c", "npx -c", "cmd /c", "powershell -Command", ...),
// or "" when it runs a program directly. A wrapper's command string can
// run anything: a review shows it prominently.
func (l *Launch) ShellWrapper() string {
	base := strings.ToLower(filepath.Base(l.Command))
	base = strings.TrimSuffix(base, ".exe")
	base = strings.TrimSuffix(base, ".cmd")
	for _, a := range l.Args {
		la := strings.ToLower(a)
		switch base {
		case "sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "busybox":
			// -c, or bundled short options holding c (-lc, -ec).
			if len(la) > 1 && la[0] == '-' && la[1] != '-' && strings.ContainsRune(la[1:], 'c') {
				return base + " " + a
			}
		case "npx", "npm", "pnpm", "yarn", "bunx":
			if la == "-c" || la == "--call" || strings.HasPrefix(la, "--call=") {
				return base + " " + a
			}
		case "cmd":
			if la == "/c" || la == "/k" {
				return base + " " + a
			}
		case "powershell", "pwsh":
			if la == "-c" || strings.HasPrefix(la, "-command") || strings.HasPrefix(la, "-encodedcommand") || la == "-e" || la == "-ec" {
				return base + " " + a
			}
		case "python", "python3", "python2", "node", "deno", "bun", "perl", "ruby", "php":
			if la == "-c" || la == "-e" || la == "--eval" || la == "-r" || la == "-p" || la == "--print" {
				return base + " " + a
			}
		case "env":
			// env runs its first non-option argument: judge that.
			if !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
				i := slices.Index(l.Args, a)
				return (&Launch{Command: a, Args: l.Args[i+1:]}).ShellWrapper()
			}
		}
	}
	return ""
}

func sortedMapKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// PendingLaunch is a stdio server's launch waiting for an operator: new
// (no launch of the server was accepted) or changed since the accepted
// one. The server is not started meanwhile.
type PendingLaunch struct {
	Server string
	// Launch is what would run; Hash its [Launch.Hash], the value an
	// accept must carry.
	Launch *Launch
	Hash   string
	// Pinned is the accepted launch's hash, "" for a new launch; Previous
	// the accepted launch as it was recorded, nil when unknown.
	Pinned   string
	Previous *Launch
}
