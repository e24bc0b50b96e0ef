package gateway

import (
	"io/fs"
	"os"
)

// ruleHardLink refuses a file that has more than one name, unless every
// name is found inside the root and none is hidden. A hard link inside the
// root to a file outside it (or to .env) looks like any other file: os.Root
// and the link checks cannot see where its other names are. The model
// cannot make hard links through the gateway; they come from elsewhere.
const ruleHardLink = "hard-link"

// maxHardLinkScan is how many entries of the root are looked at to find the
// other names of a file with several; past it the file is refused.
var maxHardLinkScan = 50000 // a variable for tests

// hardLinked refuses a regular file with more than one name (hard links)
// unless all of them lie inside the root, none hidden; what names the
// parameter ("read_file.path", "args[0]") and shown the path as the model
// wrote it.
func (g *Gateway) hardLinked(what, shown string, fi fs.FileInfo) *refusal {
	if !fi.Mode().IsRegular() {
		return nil
	}
	n := linkCount(fi)
	if n <= 1 {
		return nil
	}
	names, complete := g.namesOf(fi, n)
	return g.hardLinkRefusal(what, shown, n, names, complete)
}

// hardLinkRefusal judges a file with n names of which names were found
// inside the root (all of them when complete).
func (g *Gateway) hardLinkRefusal(what, shown string, n uint64, names []string, complete bool) *refusal {
	if !complete {
		verb := "were"
		if len(names) == 1 {
			verb = "was"
		}
		return refuse(ruleHardLink, "%s %s names a file with %d names (hard links), of which %d %s found inside the project; another may lie outside it, so it is not read; a person can replace it with a copy (cp --remove-destination)", what, quote(shown), n, len(names), verb)
	}
	for _, name := range names {
		if pat := g.policy.hiddenBy(name); pat != "" {
			return refuse(ruleHardLink, "%s %s names a file with %d names (hard links), and one of them matches the hidden path pattern %q (hidden_paths in the policy); hidden paths are never shown to the model", what, quote(shown), n, pat)
		}
	}
	return nil
}

// namesOfAll is namesOf for several files at once, in one walk of the
// root: names[i] holds the names found of files[i], complete[i] whether
// they are all of its linkCount.
func (g *Gateway) namesOfAll(files []fs.FileInfo) (names [][]string, complete []bool) {
	names = make([][]string, len(files))
	want := make([]uint64, len(files))
	left := 0
	for i, fi := range files {
		if want[i] = linkCount(fi); want[i] > 0 {
			left++
		}
	}
	seen := 0
	_ = fs.WalkDir(g.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable directory: its names stay unfound
		}
		if seen++; seen > maxHardLinkScan {
			return fs.SkipAll
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil || linkCount(info) <= 1 {
			return nil
		}
		for i, fi := range files { // two of files may be names of one file: each gets every name
			if uint64(len(names[i])) < want[i] && os.SameFile(fi, info) {
				if names[i] = append(names[i], p); uint64(len(names[i])) == want[i] {
					left--
				}
			}
		}
		if left == 0 {
			return fs.SkipAll
		}
		return nil
	})
	complete = make([]bool, len(files))
	for i := range files {
		complete[i] = uint64(len(names[i])) == want[i]
	}
	return names, complete
}

// namesOf finds the names of the file fi (n of them) inside the root,
// looking at no more than maxHardLinkScan entries and following no links;
// complete reports whether all n were found.
func (g *Gateway) namesOf(fi fs.FileInfo, n uint64) (names []string, complete bool) {
	seen := 0
	_ = fs.WalkDir(g.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable directory: its names stay unfound
		}
		if seen++; seen > maxHardLinkScan {
			return fs.SkipAll
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil || !os.SameFile(fi, info) {
			return nil
		}
		names = append(names, p)
		if uint64(len(names)) == n {
			return fs.SkipAll
		}
		return nil
	})
	return names, uint64(len(names)) == n
}
