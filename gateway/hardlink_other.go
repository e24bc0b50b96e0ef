//go:build !unix

package gateway

import "io/fs"

// linkCount is 1 where the file system gives no link count.
func linkCount(fs.FileInfo) uint64 { return 1 }
