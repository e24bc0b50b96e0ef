//go:build linux

package ui

import (
	"fmt"
	"os"
	"syscall"
)

// fileIdentity is a file's inode and change time: a file replaced, or
// changed and its modification time set back, differs in them.
func fileIdentity(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "?"
	}
	return fmt.Sprintf("%d:%d:%d", st.Ino, st.Ctim.Sec, st.Ctim.Nsec)
}
