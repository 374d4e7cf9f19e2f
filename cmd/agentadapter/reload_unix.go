//go:build unix

package main

import (
	"errors"
	"os"
	"strconv"
	"syscall"
)

// userTag names the user in the fallback socket directory.
func userTag() string { return strconv.Itoa(os.Getuid()) }

// ownedByUs reports whether the user running us owns fi.
func ownedByUs(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// staleSocket reports whether a dial error means nobody listens on the
// socket any more.
func staleSocket(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
