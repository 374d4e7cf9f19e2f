//go:build !unix

package config

import "io/fs"

// checkOwner checks nothing where file modes do not say who may write
// (Windows ACLs are not read).
func checkOwner(string, fs.FileInfo) error { return nil }

func executable(fs.FileInfo) bool { return true }
