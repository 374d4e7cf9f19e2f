//go:build !unix

package main

import "os"

// userTag names the user in the fallback socket directory (the temporary
// directory is the user's own on Windows).
func userTag() string { return os.Getenv("USERNAME") }

// ownedByUs: the temporary directory is the user's own.
func ownedByUs(os.FileInfo) bool { return true }

// staleSocket: a dead gateway's socket is left in place, harmless.
func staleSocket(error) bool { return false }
