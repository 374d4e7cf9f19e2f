//go:build unix

package config

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

func checkOwner(p string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by others (mode %04o): run chmod go-w %s", p, fi.Mode().Perm(), p)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() && st.Uid != 0 {
		return fmt.Errorf("%s is owned by user %d, not by you (%d) or root", p, st.Uid, os.Getuid())
	}
	return nil
}

func executable(fi fs.FileInfo) bool { return fi.Mode()&0o111 != 0 }
