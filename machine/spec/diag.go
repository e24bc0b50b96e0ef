package spec

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/machine/spec/yamlsrc"
)

// ErrInvalidSpec is wrapped by every error that reports spec diagnostics.
var ErrInvalidSpec = errors.New("invalid spec")

// Severity tells errors from warnings.
type Severity int

// Severities.
const (
	SevError Severity = iota
	SevWarning
)

func (s Severity) String() string {
	if s == SevWarning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one problem found in a spec, with its position.
type Diagnostic struct {
	Severity Severity
	File     string
	Pos      Pos
	Span     int    // length of the offending text in bytes (0: one caret)
	Msg      string // what is wrong
	Hint     string // how to fix it (e.g. `did you mean "optimizer"?`)
	More     int    // diagnostics like this one left out of the report (capAlike)
}

// Diagnostics is a list of problems, in file order once sorted.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an error (not a warning).
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == SevError {
			return true
		}
	}
	return false
}

// Errors returns only the errors.
func (ds Diagnostics) Errors() Diagnostics { return ds.filter(SevError) }

// Warnings returns only the warnings.
func (ds Diagnostics) Warnings() Diagnostics { return ds.filter(SevWarning) }

func (ds Diagnostics) filter(sev Severity) Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == sev {
			out = append(out, d)
		}
	}
	return out
}

// Sort orders diagnostics by file position (stable for equal positions).
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Pos, ds[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// Err returns nil when there are no errors, else an error that wraps
// ErrInvalidSpec and lists every diagnostic (warnings included).
func (ds Diagnostics) Err() error {
	if !ds.HasErrors() {
		return nil
	}
	return &DiagnosticsError{Diags: ds}
}

// DiagnosticsError is the error form of Diagnostics.
type DiagnosticsError struct {
	Diags  Diagnostics
	Source []byte // optional: used to print snippets
}

func (e *DiagnosticsError) Error() string {
	n := e.Diags.Count(SevError)
	var b strings.Builder
	for i, d := range e.Diags {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.String())
	}
	if n > 1 {
		fmt.Fprintf(&b, "\n%d errors", n)
	}
	return b.String()
}

func (e *DiagnosticsError) Unwrap() error { return ErrInvalidSpec }

// String renders "file:line:col: severity: message (hint)" on one line.
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.Where())
	b.WriteString(": ")
	b.WriteString(d.Severity.String())
	b.WriteString(": ")
	b.WriteString(d.Msg)
	if d.Hint != "" {
		b.WriteString("; ")
		b.WriteString(d.Hint)
	}
	return b.String()
}

// Where renders "file:line:col" (or less when unknown).
func (d Diagnostic) Where() string {
	file := d.File
	if file == "" {
		file = "<spec>"
	}
	if !d.Pos.IsValid() {
		return file
	}
	return fmt.Sprintf("%s:%d:%d", file, d.Pos.Line, d.Pos.Col)
}

// Pretty renders the diagnostic with the offending source line and a caret
// under the offending text:
//
//	specs/a.yaml:12:13: error: unknown state "optimiser"
//	   12 |       - to: optimiser
//	      |             ^^^^^^^^^
//	      = did you mean "optimizer"?
func (d Diagnostic) Pretty(src []byte) string {
	var b strings.Builder
	b.WriteString(d.Where())
	b.WriteString(": ")
	b.WriteString(d.Severity.String())
	b.WriteString(": ")
	b.WriteString(d.Msg)
	line := yamlsrc.LineBytes(src, d.Pos.Line)
	if d.Pos.IsValid() && len(line) > 0 {
		num := fmt.Sprintf("%d", d.Pos.Line)
		pad := strings.Repeat(" ", len(num))
		shown, indent, width := snippet(line, d.Pos.Col-1, d.Span)
		fmt.Fprintf(&b, "\n %s | %s", num, shown)
		fmt.Fprintf(&b, "\n %s | %s%s", pad, strings.Repeat(" ", indent), strings.Repeat("^", width))
		if d.Hint != "" {
			fmt.Fprintf(&b, "\n %s = %s", pad, d.Hint)
		}
	} else if d.Hint != "" {
		b.WriteString("\n   = ")
		b.WriteString(d.Hint)
	}
	return b.String()
}

// PrettyAll renders all diagnostics with snippets, separated by blank lines,
// and a summary line.
func (ds Diagnostics) PrettyAll(src []byte) string {
	var b strings.Builder
	for i, d := range ds {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(d.Pretty(src))
	}
	ne, nw := ds.Count(SevError), ds.Count(SevWarning)
	if ne+nw > 0 {
		fmt.Fprintf(&b, "\n\n%s, %s", textx.Count(ne, "error", "errors"), textx.Count(nw, "warning", "warnings"))
	}
	return b.String()
}

// SourceLine returns line number line (1-based) of src, without its line
// break ("" when there is no such line), lines counted as YAML counts them
// (yamlsrc.SourceLine).
func SourceLine(src []byte, line int) string { return yamlsrc.SourceLine(src, line) }

// LineCount returns the number of lines of src, counted as SourceLine does.
func LineCount(src []byte) int { return yamlsrc.LineCount(src) }

// snippetWidth is the most of a source line a diagnostic shows.
const snippetWidth = 120

// snippet returns the part of line to show (a window around col when the
// line is long, tabs expanded), the caret's indent in it, and the caret's width.
// col and span count characters (YAML columns), not bytes. Only the window
// is decoded: a long line's characters are counted once (charIndex), not
// once per diagnostic.
func snippet(line []byte, col, span int) (shown string, indent, width int) {
	n, at := charIndex(line)
	col = min(max(col, 0), n)
	if span <= 0 {
		span = 1
	}
	start, end := 0, n
	if n > snippetWidth {
		start = max(0, col-snippetWidth/3)
		end = min(n, start+snippetWidth)
	}
	if rest := end - col; rest > 0 && span > rest {
		span = rest
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
		indent++
	}
	off := at(start)
	for i := start; i < end; i++ {
		r, size := utf8.DecodeRune(line[off:]) // an invalid byte is one U+FFFD, as []rune counts it
		off += size
		w := 1
		switch {
		case r == '\t':
			b.WriteString("    ")
			w = 4
		case r < 0x20 || r == 0x7f:
			b.WriteRune('\uFFFD') // a control character would garble the terminal
		default:
			b.WriteRune(r)
		}
		if i < col {
			indent += w
		} else if i < col+span {
			width += w
		}
	}
	if end < n {
		b.WriteString("…")
	}
	return b.String(), indent, max(width, 1)
}

// charMarkEvery is how many characters apart charIndex marks a long line.
const charMarkEvery = 256

// charCache holds the marks of the last long line charIndex read: a
// report on a blueprint written on one line reads that line for each of
// its diagnostics.
var charCache struct {
	sync.Mutex
	data  *byte
	n     int
	chars int
	marks []int
}

// charIndex returns the number of characters of line and a function giving
// the byte offset of character i (0 <= i <= the number). A long line's
// offsets are marked every charMarkEvery characters, once.
func charIndex(line []byte) (int, func(int) int) {
	if len(line) == 0 {
		return 0, func(int) int { return 0 }
	}
	var chars int
	var marks []int
	charCache.Lock()
	if charCache.data == &line[0] && charCache.n == len(line) {
		chars, marks = charCache.chars, charCache.marks
	} else {
		for off := 0; off < len(line); chars++ {
			if chars%charMarkEvery == 0 {
				marks = append(marks, off)
			}
			_, size := utf8.DecodeRune(line[off:])
			off += size
		}
		if len(line) > 4*charMarkEvery {
			charCache.data, charCache.n, charCache.chars, charCache.marks = &line[0], len(line), chars, marks
		}
	}
	charCache.Unlock()
	return chars, func(i int) int {
		if i >= chars {
			return len(line)
		}
		off := marks[i/charMarkEvery]
		for range i % charMarkEvery {
			_, size := utf8.DecodeRune(line[off:])
			off += size
		}
		return off
	}
}

// DidYouMean returns the candidate closest to name (ignoring case) and
// true, or "" and false when none is close enough to be what was meant.
func DidYouMean(name string, candidates []string) (string, bool) {
	best, bestDist := "", 0
	for _, c := range candidates {
		if c == name {
			continue
		}
		// in half edits: two neighbours swapped (od for do) is the
		// likeliest slip, closer than any one edit
		d := 2 * textx.Levenshtein(strings.ToLower(name), strings.ToLower(c))
		if swapped(strings.ToLower(name), strings.ToLower(c)) {
			d = 1
		}
		if best == "" || d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == "" {
		return "", false
	}
	limit := 2 * max(len(name)/3, 2)
	if bestDist > limit && !strings.HasPrefix(strings.ToLower(best), strings.ToLower(name)) {
		return "", false
	}
	return best, true
}

// swapped reports whether b is a with two neighbouring bytes swapped.
func swapped(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}

// didYouMean renders DidYouMean as a hint, `did you mean "x"?`, or "".
func didYouMean(name string, candidates []string) string {
	if best, ok := DidYouMean(name, candidates); ok {
		return fmt.Sprintf("did you mean %q?", best)
	}
	return ""
}

// DidYouMeanHint renders DidYouMean as a hint, `did you mean "x"?`, or "".
func DidYouMeanHint(name string, candidates []string) string { return didYouMean(name, candidates) }

// listNames joins names, eliding after max.
func ListNames(names []string, max int) string {
	if len(names) == 0 {
		return "(none)"
	}
	if len(names) > max {
		return strings.Join(names[:max], ", ") + fmt.Sprintf(", ... (%d more)", len(names)-max)
	}
	return strings.Join(names, ", ")
}

// AppendUnique appends s to list unless list holds it already.
func AppendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// hintSuffix renders a hint after a message: "; " and the hint, or "".
func HintSuffix(h string) string {
	if h == "" {
		return ""
	}
	return "; " + h
}
