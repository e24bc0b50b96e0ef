package gateway

import "io/fs"

// ruleHardLink refuses a file that has more than one name. A hard link
// inside the root to a file outside it (or to .env) looks like any other
// file: os.Root and the link checks cannot see where its other names are.
// The model cannot make hard links through the gateway; they come from
// elsewhere, so a file with several names is not read or handed to a script.
const ruleHardLink = "hard-link"

// hardLinked refuses a regular file with more than one hard link; what
// names the parameter ("read_file.path", "args[0]") and shown the path as
// the model wrote it.
func hardLinked(what, shown string, fi fs.FileInfo) *refusal {
	if !fi.Mode().IsRegular() {
		return nil
	}
	n := linkCount(fi)
	if n <= 1 {
		return nil
	}
	return refuse(ruleHardLink, "%s %s names a file with %d names (hard links); another of them may lie outside the project or be hidden, which no check can see, so it is not read; a person can replace it with a copy (cp --remove-destination)", what, quote(shown), n)
}
