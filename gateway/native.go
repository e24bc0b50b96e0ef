package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// runNative runs a checked file sub-command on the root.
func (g *Gateway) runNative(ctx context.Context, sc *SubCommand, vals map[string]string) Result {
	switch sc.Name {
	case "list_files":
		return g.listFiles(ctx, vals["path"])
	case "read_file":
		return g.readFile(vals["path"])
	case "make_directory":
		return g.makeDirectory(vals["path"])
	case "tree":
		return g.tree(ctx, vals["path"], vals["depth"])
	case "copy_file":
		return g.copyFile(ctx, vals["src"], vals["dst"])
	case "move_file":
		return g.moveFile(ctx, vals["src"], vals["dst"])
	}
	return failed("%s is not implemented", sc.Name)
}

// pathUse says how a path parameter will be used.
type pathUse int

const (
	useRead      pathUse = iota // read: resolved and checked against hidden paths
	useWrite                    // written: resolved and checked against protected and hidden paths
	useWriteLink                // like useWrite, but a link in the last component is not followed
)

// target checks one path parameter and resolves its symbolic links inside the
// root. It returns the clean path as written and the resolved one. shown is
// the value as sent.
func (g *Gateway) target(op, param, shown string, use pathUse) (lit, res string, _ Result, _ bool) {
	if shown == "" {
		shown = "."
	}
	clean, r := checkPathSyntax(shown)
	if r != nil {
		r.detail = op + "." + param + " " + r.detail
		return "", "", blocked(r), false
	}
	dir, base := clean, ""
	if use == useWriteLink && clean != "." {
		dir, base = path.Dir(clean), path.Base(clean)
	}
	res, r, err := g.resolve(dir, shown)
	if r != nil {
		r.detail = op + "." + param + " " + r.detail
		return "", "", blocked(r), false
	}
	if err != nil {
		return "", "", failed("%s: %v", op, err), false
	}
	if base != "" {
		res = path.Join(res, base)
	}
	return clean, res, Result{}, true
}

// readTarget is target for a path that will be read or listed: a hidden path,
// as written or after resolving links, is refused.
func (g *Gateway) readTarget(op, param, shown string) (lit, res string, _ Result, _ bool) {
	lit, res, result, ok := g.target(op, param, shown, useRead)
	if !ok {
		return "", "", result, false
	}
	if shown == "" {
		shown = "."
	}
	if r := g.checkHidden(op+"."+param, shown, lit, res); r != nil {
		return "", "", blocked(r), false
	}
	return lit, res, Result{}, true
}

// writeTarget is target for a path that will be written; with parents set a
// path that contains a protected path is refused too (moving it would move that).
// Protected paths are checked first, then hidden ones (the model may not
// create, overwrite or move hidden paths either).
func (g *Gateway) writeTarget(op, param, shown string, parents bool, use pathUse) (string, Result, bool) {
	lit, p, res, ok := g.target(op, param, shown, use)
	if !ok {
		return "", res, false
	}
	if pr := g.protectedFor(p, parents); pr != "" {
		what := "is inside"
		if !within(p, pr) {
			what = "contains"
		}
		return "", blocked(refuse(ruleProtected, "%s.%s %s %s the protected path %q%s, which no tool may change; %s",
			op, param, quote(shown), what, pr, g.protectedWhy(pr), g.writeHint())), false
	}
	if r := g.checkHidden(op+"."+param, shown, lit, p); r != nil {
		return "", blocked(r), false
	}
	if use == useWriteLink && lit != "." {
		// The link itself is moved, but a link to a hidden path is refused all the same.
		if full, r, err := g.resolve(lit, shown); r == nil && err == nil && full != p {
			if pat := g.policy.hiddenBy(full); pat != "" {
				return "", blocked(hiddenRefusal(op+"."+param, shown, pat, true)), false
			}
		}
	}
	return p, Result{}, true
}

// writeHint says where to write instead: under output/, unless the policy
// protects that too (protected_paths: [.] makes the whole project read-only).
func (g *Gateway) writeHint() string {
	if g.protectedFor("output/x", false) != "" {
		return "the policy protects output/ as well, so no tool may write there either"
	}
	return "use another path, e.g. under output/"
}

// fsError turns a file-system error into an [ERROR] or [SECURITY BLOCKED] result
// without leaking absolute paths.
func fsError(op, param, shown string, err error) Result {
	if isEscape(err) {
		return blocked(refuse(ruleSymlinkEscape, "%s.%s %s goes through a symbolic link that leaves the project root", op, param, quote(shown)))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return failed("%s: %s does not exist", op, quote(shown))
	case errors.Is(err, fs.ErrPermission):
		return failed("%s: permission denied for %s", op, quote(shown))
	case isNoDevice(err): // a socket: the same answer as for a FIFO or a device
		if op == "copy_file" {
			return failed("%s: %s is not a regular file (copy_file copies single files)", op, quote(shown))
		}
		return failed("%s: %s is not a regular file", op, quote(shown))
	case errors.Is(err, context.DeadlineExceeded):
		r := failed("%s: timed out", op)
		r.Rule, r.TimedOut = "timeout", true
		return r
	}
	return failed("%s: cannot use %s: %v", op, quote(shown), err)
}

func (g *Gateway) listFiles(ctx context.Context, shown string) Result {
	lit, p, res, ok := g.readTarget("list_files", "path", shown)
	if !ok {
		return res
	}
	if shown == "" {
		shown = "."
	}
	f, err := g.openRead(p)
	if err != nil {
		return fsError("list_files", "path", shown, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fsError("list_files", "path", shown, err)
	}
	if !fi.IsDir() {
		return failed("list_files: %s is not a directory (use read_file for files)", quote(shown))
	}
	entries, err := f.ReadDir(-1)
	if err != nil {
		return fsError("list_files", "path", shown, err)
	}
	if err := ctx.Err(); err != nil {
		return fsError("list_files", "path", shown, err)
	}
	visible := entries[:0]
	hidden := 0
	for _, e := range entries {
		if g.hiddenEntry(path.Join(lit, e.Name()), path.Join(p, e.Name()), e) {
			hidden++
			continue
		}
		visible = append(visible, e)
	}
	entries = visible
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	max, maxBytes := g.policy.Limits.ListMaxEntries, g.policy.Limits.ListMaxBytes
	var b strings.Builder
	for i, e := range entries {
		if i == max {
			fmt.Fprintf(&b, "[TRUNCATED: showing %d of %d entries]\n", max, len(entries))
			break
		}
		name := entryName(e.Name(), e.Type())
		if b.Len()+len(name)+1 > maxBytes {
			fmt.Fprintf(&b, "[TRUNCATED: showing %d of %d entries (%s; limits.list_max_bytes is %d)]\n", i, len(entries), countBytes(b.Len()), maxBytes)
			break
		}
		b.WriteString(name)
		b.WriteByte('\n')
	}
	if hidden > 0 {
		b.WriteString(hiddenNote(hidden))
	}
	return content("[entries of "+shown+"]", strings.TrimSuffix(b.String(), "\n"))
}

// entryName marks directories with "/" and symbolic links with "@".
func entryName(name string, mode fs.FileMode) string {
	name = printable(name)
	switch {
	case mode.IsDir():
		return name + "/"
	case mode&fs.ModeSymlink != 0:
		return name + "@"
	}
	return name
}

// printable escapes names holding control characters or invisible format
// characters (bidi overrides, zero-width), which could make a listing read
// differently from what is on disk.
func printable(s string) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError || r >= 0x80 && unicode.Is(unicode.Cf, r) {
			q := strconv.Quote(s)
			return q[1 : len(q)-1]
		}
	}
	return s
}

func (g *Gateway) readFile(shown string) Result {
	_, p, res, ok := g.readTarget("read_file", "path", shown)
	if !ok {
		return res
	}
	f, err := g.openRead(p) // the stat below refuses a FIFO or device
	if err != nil {
		return fsError("read_file", "path", shown, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fsError("read_file", "path", shown, err)
	}
	if fi.IsDir() {
		return failed("read_file: %s is a directory (use list_files or tree)", quote(shown))
	}
	if !fi.Mode().IsRegular() {
		return failed("read_file: %s is not a regular file", quote(shown))
	}
	if r := g.hardLinked("read_file.path", shown, fi); r != nil {
		return blocked(r)
	}
	limit := g.policy.Limits.ReadFileMaxBytes
	// Size the buffer by the file (plus slack for growth since the stat), not by the limit.
	buf := make([]byte, min(int64(limit), max(fi.Size(), 0)+512)+1)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return fsError("read_file", "path", shown, err)
	}
	buf = buf[:n]
	if n == cap(buf) && n <= limit { // the file grew since the stat: read on up to the limit
		more, err := io.ReadAll(io.LimitReader(f, int64(limit+1-n)))
		if err != nil {
			return fsError("read_file", "path", shown, err)
		}
		buf = append(buf, more...)
		n = len(buf)
	}
	if bytes.IndexByte(buf, 0) >= 0 {
		return failed("read_file: %s is a binary file (%d bytes); read_file shows text only", quote(shown), fi.Size())
	}
	label := "[text of " + shown + "]"
	if n <= limit {
		return content(label, string(buf))
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(buf[cut]) {
		cut--
	}
	size := fi.Size()
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	return content(label, fmt.Sprintf("%s\n[TRUNCATED: showing the first %d of %d bytes of %s]", buf[:cut], cut, size, shown))
}

func (g *Gateway) makeDirectory(shown string) Result {
	p, res, ok := g.writeTarget("make_directory", "path", shown, false, useWrite)
	if !ok {
		return res
	}
	if fi, err := g.root.Stat(p); err == nil {
		if fi.IsDir() {
			return allowed(fmt.Sprintf("directory %s already exists", shown))
		}
		return failed("make_directory: %s exists and is not a directory", quote(shown))
	}
	if err := g.root.MkdirAll(p, 0o755); err != nil {
		return fsError("make_directory", "path", shown, err)
	}
	return allowed(fmt.Sprintf("created directory %s", shown))
}

func (g *Gateway) tree(ctx context.Context, shown, depthStr string) Result {
	lit, p, res, ok := g.readTarget("tree", "path", shown)
	if !ok {
		return res
	}
	if shown == "" {
		shown = "."
	}
	lim := g.policy.Limits
	depth := lim.TreeMaxDepth
	if depthStr != "" {
		d, err := strconv.Atoi(depthStr)
		if err != nil || d < 1 {
			return failed("tree: depth must be a whole number of at least 1, got %s", quote(depthStr))
		}
		depth = min(d, lim.TreeMaxDepth)
	}
	fi, err := g.root.Stat(p)
	if err != nil {
		return fsError("tree", "path", shown, err)
	}
	if !fi.IsDir() {
		return failed("tree: %s is not a directory", quote(shown))
	}
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(path.Clean(strings.ReplaceAll(shown, `\`, "/")), "/") + "/\n")
	count, hidden, deeper, full, fullBytes := 0, 0, false, false, false
	// dir is link-free (links are listed, never followed); litDir is the same
	// directory as the model named it.
	var walk func(dir, litDir string, level int) error
	walk = func(dir, litDir string, level int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := g.openRead(dir)
		if err != nil {
			return err
		}
		entries, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return err
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if full { // a shorter name further on does not fit in after a longer one did not
				return nil
			}
			if g.hiddenEntry(path.Join(litDir, e.Name()), path.Join(dir, e.Name()), e) {
				hidden++
				continue
			}
			if count >= lim.TreeMaxEntries {
				full = true
				return nil
			}
			line := strings.Repeat("  ", level) + entryName(e.Name(), e.Type())
			if b.Len()+len(line)+1 > lim.ListMaxBytes {
				full, fullBytes = true, true
				return nil
			}
			count++
			b.WriteString(line)
			b.WriteByte('\n')
			if e.IsDir() {
				if level >= depth {
					deeper = true
					continue
				}
				if err := walk(path.Join(dir, e.Name()), path.Join(litDir, e.Name()), level+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(p, lit, 1); err != nil {
		return fsError("tree", "path", shown, err)
	}
	switch {
	case fullBytes:
		fmt.Fprintf(&b, "[TRUNCATED: showing the first %d entries (%s; limits.list_max_bytes is %d)]\n", count, countBytes(b.Len()), lim.ListMaxBytes)
	case full:
		fmt.Fprintf(&b, "[TRUNCATED: showing the first %d entries]\n", lim.TreeMaxEntries)
	}
	if deeper {
		fmt.Fprintf(&b, "[TRUNCATED: directories deeper than %d levels are not expanded]\n", depth)
	}
	if hidden > 0 {
		b.WriteString(hiddenNote(hidden))
	}
	return allowed(strings.TrimSuffix(b.String(), "\n"))
}

func (g *Gateway) copyFile(ctx context.Context, srcShown, dstShown string) Result {
	_, src, res, ok := g.readTarget("copy_file", "src", srcShown)
	if !ok {
		return res
	}
	dst, res, ok := g.writeTarget("copy_file", "dst", dstShown, false, useWrite)
	if !ok {
		return res
	}
	in, err := g.openRead(src)
	if err != nil {
		return fsError("copy_file", "src", srcShown, err)
	}
	defer in.Close()
	sfi, err := in.Stat()
	if err != nil {
		return fsError("copy_file", "src", srcShown, err)
	}
	if !sfi.Mode().IsRegular() {
		return failed("copy_file: %s is not a regular file (copy_file copies single files)", quote(srcShown))
	}
	if r := g.hardLinked("copy_file.src", srcShown, sfi); r != nil {
		return blocked(r)
	}
	if sfi.Size() > g.policy.Limits.CopyMaxBytes {
		return failed("copy_file: %s is %d bytes, more than the limit of %d (limits.copy_max_bytes in the policy)", quote(srcShown), sfi.Size(), g.policy.Limits.CopyMaxBytes)
	}
	if dfi, err := g.root.Stat(dst); err == nil {
		if dfi.IsDir() {
			return failed("copy_file: destination %s is a directory; give the full file path", quote(dstShown))
		}
		if os.SameFile(sfi, dfi) {
			return failed("copy_file: %s and %s are the same file", quote(srcShown), quote(dstShown))
		}
	}
	if dir := path.Dir(dst); dir != "." {
		if err := g.root.MkdirAll(dir, 0o755); err != nil {
			return fsError("copy_file", "dst", dstShown, err)
		}
	}
	// Write a new file and rename it over dst: an existing dst is replaced, not
	// written in place, so a hard link to it (say, to a protected file) keeps its
	// content, its mode (an executable bit) is not inherited, and a failed copy
	// leaves dst as it was.
	tmp, out, err := g.createTemp(path.Dir(dst))
	if err != nil {
		return fsError("copy_file", "dst", dstShown, err)
	}
	n, err := io.Copy(out, &ctxReader{ctx: ctx, r: io.LimitReader(in, g.policy.Limits.CopyMaxBytes)})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = g.root.Rename(tmp, dst)
	}
	if err != nil {
		_ = g.root.Remove(tmp)
		return fsError("copy_file", "dst", dstShown, err)
	}
	return allowed(fmt.Sprintf("copied %s to %s (%d bytes)", srcShown, dstShown, n))
}

// createTemp creates a new, empty file in dir with a random name.
func (g *Gateway) createTemp(dir string) (string, *os.File, error) {
	var b [8]byte
	for i := 0; ; i++ {
		_, _ = rand.Read(b[:])
		name := path.Join(dir, ".lpp-copy-"+hex.EncodeToString(b[:])+".tmp")
		f, err := g.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil || !errors.Is(err, fs.ErrExist) || i == 9 {
			return name, f, err
		}
	}
}

func (g *Gateway) moveFile(ctx context.Context, srcShown, dstShown string) Result {
	// Move a link itself, not its target: the last component of src is not followed.
	src, res, ok := g.writeTarget("move_file", "src", srcShown, true, useWriteLink)
	if !ok {
		return res
	}
	dst, res, ok := g.writeTarget("move_file", "dst", dstShown, true, useWrite)
	if !ok {
		return res
	}
	if src == "." {
		return blocked(refuse(ruleProtected, "move_file.src %s is the project root", quote(srcShown)))
	}
	// Moving a directory would carry what an anchored pattern hides below it out of its reach.
	if pat := g.policy.hiddenBelow(src); pat != "" {
		return blocked(refuse(ruleHidden, "move_file.src %s may contain paths matching the hidden path pattern %q (hidden_paths in the policy); moving it would expose them", quote(srcShown), pat))
	}
	sfi, err := g.root.Lstat(src)
	if err != nil {
		return fsError("move_file", "src", srcShown, err)
	}
	if _, err := g.root.Lstat(dst); err == nil {
		return failed("move_file: destination %s already exists", quote(dstShown))
	}
	// Names compared as the file system compares them (not case-folded as
	// protected paths are): output/d/F.TXT is another file than output/d/f.txt
	// where the file system tells case apart.
	if dst == src || g.under(dst, src) {
		return failed("move_file: cannot move %s into itself", quote(srcShown))
	}
	if res, ok := g.checkMovedLinks(ctx, srcShown, src, dst, sfi); !ok {
		return res
	}
	if dir := path.Dir(dst); dir != "." {
		if err := g.root.MkdirAll(dir, 0o755); err != nil {
			return fsError("move_file", "dst", dstShown, err)
		}
	}
	if err := g.root.Rename(src, dst); err != nil {
		return fsError("move_file", "src", srcShown, err)
	}
	return allowed(fmt.Sprintf("moved %s to %s", srcShown, dstShown))
}

// maxMovedEntries caps how many entries move_file inspects below a directory.
const maxMovedEntries = 10000

// checkMovedLinks refuses a move that would change where a symbolic link
// points: a relative target is read from the link's own directory, so moving
// a link (or a directory holding one) whose target climbs out of what is
// moved makes it point somewhere else, possibly out of the root, where
// scripts that check paths only lexically would follow it.
func (g *Gateway) checkMovedLinks(ctx context.Context, srcShown, src, dst string, fi fs.FileInfo) (Result, bool) {
	check := func(link string) (Result, bool) {
		target, err := g.root.Readlink(link)
		if err != nil {
			return fsError("move_file", "src", srcShown, err), false
		}
		if strings.HasPrefix(target, "/") {
			return Result{}, true // absolute: means the same anywhere (and is refused on use)
		}
		before := path.Join(path.Dir(link), target)
		want := before // where it must point after the move
		if before == src || strings.HasPrefix(before, src+"/") {
			want = dst + strings.TrimPrefix(before, src) // inside what moves: moves along
		}
		after := path.Join(path.Dir(dst+strings.TrimPrefix(link, src)), target)
		if after == want {
			return Result{}, true
		}
		what := "holds the symbolic link " + quote(link)
		if link == src {
			what = "is a symbolic link"
		}
		return blocked(refuse(ruleLinkMove, "move_file.src %s %s -> %s, which would point to %s instead of %s after the move; move it within its own directory, or move what it points to",
			quote(srcShown), what, quote(target), quote(after), quote(want))), false
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return check(src)
	}
	if !fi.IsDir() {
		return Result{}, true
	}
	n := 0
	var res Result
	ok := true
	err := fs.WalkDir(g.root.FS(), src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n++; n > maxMovedEntries {
			res, ok = failed("move_file: %s holds more than %d entries; move smaller directories", quote(srcShown), maxMovedEntries), false
			return fs.SkipAll
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if res, ok = check(p); !ok {
				return fs.SkipAll
			}
		}
		return nil
	})
	if err != nil && ok {
		return fsError("move_file", "src", srcShown, err), false
	}
	return res, ok
}

// openRead opens a root-relative path for reading without blocking: opening
// a FIFO (blocks until a writer comes) or a device must never hang a call.
// Callers stat the open file and refuse what is not a regular file or directory.
func (g *Gateway) openRead(p string) (*os.File, error) {
	return g.root.OpenFile(p, os.O_RDONLY|openNonblock, 0)
}

// ctxReader stops a copy when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// countBytes is "1 byte" or "N bytes".
func countBytes(n int) string {
	if n == 1 {
		return "1 byte"
	}
	return strconv.Itoa(n) + " bytes"
}
