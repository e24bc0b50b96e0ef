package spec

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MaxNamedFileBytes is the largest file a spec may name (a prompt, a
// schema, a child spec, a script): a larger one is refused before it is
// read, so a hostile name cannot exhaust memory.
const MaxNamedFileBytes = 16 << 20

// ErrOutsideRoot is wrapped by the errors of files a spec names that lie
// outside the project root (absolute, climbing out with "..", or through a
// link).
var ErrOutsideRoot = errors.New("outside the project root")

// ErrNotRegular is wrapped by the errors of files a spec names that are
// not regular files (a folder, a device, a FIFO, a socket).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the errors of files a spec names that are
// larger than MaxNamedFileBytes.
var ErrTooLarge = errors.New("too large")

// fileBases returns the folders, absolute, inside which the files a spec
// names may lie: the project root (root "" is the current directory) and,
// when the spec's own folder lies outside the root, that folder too (a
// person named that spec on the command line; what it names stays beside or
// below it).
func fileBases(specDir, root string) []string {
	if root == "" {
		root = "."
	}
	var bases []string
	if r, err := filepath.Abs(root); err == nil {
		bases = append(bases, r)
	}
	if specDir != "" {
		if s, err := filepath.Abs(specDir); err == nil && !anyWithin(bases, s) {
			bases = append(bases, s)
		}
	}
	return bases
}

// within returns p (absolute) relative to base when it lies inside it.
func within(base, p string) (string, bool) {
	rel, err := filepath.Rel(base, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

func anyWithin(bases []string, p string) bool {
	for _, b := range bases {
		if _, ok := within(b, p); ok {
			return true
		}
	}
	return false
}

// baseOf returns the base holding path p and p relative to it.
func baseOf(bases []string, p string) (base, rel string, ok bool) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", "", false
	}
	for _, b := range bases {
		if rel, ok := within(b, abs); ok {
			return b, rel, true
		}
	}
	return "", "", false
}

// LocateFile finds the file a file parameter (TypeFile) names, the way the
// actions find their templates, scripts, schemas and child specs at run
// time: the first of specDir/name, root/name, root/specs/name and name (from
// the current directory) that exists inside the project root (see
// fileBases), following links only while they stay inside it. It returns
// the path found ("" when none exists) and the candidates inside the root,
// in the order they are tried. err wraps ErrOutsideRoot when the name can
// only mean a file outside the root: an absolute path or one climbing out
// with "..", or a link leading out.
func LocateFile(name, specDir, root string) (found string, tried []string, err error) {
	if name == "" {
		return "", nil, nil
	}
	if root == "" {
		root = "."
	}
	bases := fileBases(specDir, root)
	var cands []string
	if filepath.IsAbs(name) {
		cands = []string{filepath.Clean(name)}
	} else {
		for _, dir := range []string{specDir, root, filepath.Join(root, "specs")} {
			if dir != "" {
				cands = AppendUnique(cands, filepath.Join(dir, name))
			}
		}
		cands = AppendUnique(cands, filepath.Clean(name))
	}
	escaped := ""
	for _, p := range cands {
		base, rel, ok := baseOf(bases, p)
		if !ok {
			continue
		}
		tried = append(tried, p)
		if _, serr := statIn(base, rel); serr == nil {
			return p, tried, nil
		} else if !errors.Is(serr, fs.ErrNotExist) && escaped == "" {
			if _, lerr := os.Stat(p); lerr == nil {
				escaped = p // there is something, but not inside the root
			}
		}
	}
	switch {
	case escaped != "":
		return "", tried, fmt.Errorf("file %q (%s) leads out of the project root through a link: %w", name, escaped, ErrOutsideRoot)
	case len(tried) == 0:
		return "", nil, fmt.Errorf("file %q is %w", name, ErrOutsideRoot)
	}
	return "", tried, nil
}

// ResolveFile is LocateFile without the reason a name leads nowhere: found
// is "" for a missing file and for one outside the project root.
func ResolveFile(name, specDir, root string) (found string, tried []string) {
	found, tried, _ = LocateFile(name, specDir, root)
	return found, tried
}

// statIn stats rel inside base through an os.Root (links may not leave it).
func statIn(base, rel string) (fs.FileInfo, error) {
	r, err := os.OpenRoot(base)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Stat(rel)
}

// ReadNamedFile reads a file that LocateFile found (path is its found), for
// the spec in specDir with the project root root: through an os.Root, so a
// link cannot lead out of the root even if one was swapped in after
// LocateFile; only a regular file (opened non-blocking, so a FIFO never
// hangs), of at most MaxNamedFileBytes. The errors never quote the file's
// content.
func ReadNamedFile(path, specDir, root string) ([]byte, error) {
	f, err := OpenNamed(path, specDir, root)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxNamedFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxNamedFileBytes {
		return nil, fmt.Errorf("it is larger than the limit of %d bytes (%w)", MaxNamedFileBytes, ErrTooLarge)
	}
	return b, nil
}

// openNamed opens path as ReadNamedFile reads it and checks what it is.
func OpenNamed(path, specDir, root string) (*os.File, error) {
	base, rel, ok := baseOf(fileBases(specDir, root), path)
	if !ok {
		return nil, fmt.Errorf("it is %w", ErrOutsideRoot)
	}
	r, err := os.OpenRoot(base)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.OpenFile(rel, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
			if _, lerr := os.Stat(path); lerr == nil {
				return nil, fmt.Errorf("it leads out of the project root through a link (%w)", ErrOutsideRoot)
			}
		}
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	switch {
	case info.IsDir():
		f.Close()
		return nil, fmt.Errorf("it is a directory (%w)", ErrNotRegular)
	case !info.Mode().IsRegular():
		f.Close()
		return nil, fmt.Errorf("it is %s (%w)", fileKind(info.Mode()), ErrNotRegular)
	case info.Size() > MaxNamedFileBytes:
		f.Close()
		return nil, fmt.Errorf("it is %d bytes, larger than the limit of %d (%w)", info.Size(), MaxNamedFileBytes, ErrTooLarge)
	}
	return f, nil
}

// fileKind names a file mode's type for messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
