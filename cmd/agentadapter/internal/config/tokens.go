package config

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// MinTokenLength is the fewest characters an inbound bearer token, an
// operator token or a JWT secret may have: 32 characters of
// `openssl rand -hex 16` carry 128 bits. A short token can be guessed
// through the sign-in page or /mcp faster than any throttle notices.
const MinTokenLength = 32

// minDistinct is the fewest distinct characters a token may have: a long
// run of one or two characters ("aaaa…", "abab…") is no secret.
const minDistinct = 8

// checkStrength refuses a token too short or too repetitive to be a
// secret. The error never quotes the token.
func checkStrength(tok string) error {
	n := len([]rune(tok))
	if n < MinTokenLength {
		return fmt.Errorf("too short: %d characters, want at least %d (make one with: openssl rand -hex 32)", n, MinTokenLength)
	}
	seen := map[rune]bool{}
	for _, r := range tok {
		seen[r] = true
	}
	if len(seen) < minDistinct {
		return fmt.Errorf("too repetitive: %d distinct characters, want at least %d (make one with: openssl rand -hex 32)", len(seen), minDistinct)
	}
	return nil
}

// ReadTokensFile reads an auth.tokensFile: one "subject token [scope...]"
// line per token, blank lines and lines starting with # ignored. The file
// must be the user's (or root's) and writable by no one else, and every
// token must be strong (see MinTokenLength); errors name the file and the
// line, never a token.
func ReadTokensFile(p string) ([]Token, error) {
	if err := checkPrivate(p, false); err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("tokens file %s: %v", p, errors.Unwrap(err))
	}
	defer f.Close()
	var out []Token
	sc := bufio.NewScanner(f)
	for i := 1; sc.Scan(); i++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) < 2 {
			return nil, fmt.Errorf("tokens file %s:%d: want \"subject token [scope...]\"", p, i)
		}
		if err := checkStrength(fields[1]); err != nil {
			return nil, fmt.Errorf("tokens file %s:%d: token of %q: %v", p, i, fields[0], err)
		}
		if reservedSubject(fields[0]) {
			return nil, fmt.Errorf("tokens file %s:%d: subjects starting %q name anonymous sessions; choose another", p, i, anonymousPrefix)
		}
		out = append(out, Token{Subject: fields[0], Token: fields[1], Scopes: fields[2:]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("tokens file %s: %v", p, err)
	}
	return out, nil
}

// checkPrivate refuses a file holding secrets (or a key that decides who
// gets in) that another user could write: group- or world-writable, or
// owned by someone other than the user or root. A missing file is an
// error unless mayBeMissing (a token store written later).
func checkPrivate(p string, mayBeMissing bool) error {
	fi, err := os.Stat(p)
	if err != nil {
		if mayBeMissing && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("%s: %v", p, errors.Unwrap(err))
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a directory", p)
	}
	return checkOwner(p, fi)
}

// CheckCommands reports the first enabled stdio server whose command
// cannot be started: a bare name not found on PATH, or a path that does
// not exist or is not executable. Paths are resolved as the gateway
// starts them: a bare name on the gateway's PATH, a relative path from
// the server's cwd (or the working directory).
func (c *Config) CheckCommands() error {
	for _, s := range c.Servers {
		if s.Kind != "stdio" || s.Disabled {
			continue
		}
		if err := commandExists(s); err != nil {
			// Origin is "file:line"; the file may hold a ':' itself.
			e := &Error{File: s.Origin, Path: "command", Msg: fmt.Sprintf("server %q: %v", s.Name, err)}
			if i := strings.LastIndexByte(s.Origin, ':'); i > 0 {
				if n, err := strconv.Atoi(s.Origin[i+1:]); err == nil {
					e.File, e.Line = s.Origin[:i], n
				}
			}
			return e
		}
	}
	return nil
}

func commandExists(s *Server) error {
	if !strings.ContainsRune(s.Command, filepath.Separator) && !strings.ContainsRune(s.Command, '/') {
		if _, err := exec.LookPath(s.Command); err != nil {
			return fmt.Errorf("command %q is not found on PATH", s.Command)
		}
		return nil
	}
	p := s.Command
	if !filepath.IsAbs(p) && s.Dir != "" {
		p = filepath.Join(s.Dir, p)
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return fmt.Errorf("command %s does not exist", p)
	case fi.IsDir():
		return fmt.Errorf("command %s is a directory", p)
	case !executable(fi):
		return fmt.Errorf("command %s is not executable", p)
	}
	return nil
}
