package spec

import (
	"errors"

	"github.com/expr-lang/expr/file"
)

// exprPos maps a rune offset in an expression's text to its position in the
// spec's source, given where the expression's scalar starts: inside its
// quotes when it is quoted, at the `|` or `>` of a block scalar. It follows
// the text through the source's lines (a block scalar starts on the next
// line, continuation lines are indented, folded line breaks became spaces),
// and falls back to counting the text's own lines when the source does not
// match it (escapes in a double-quoted scalar).
func ExprPos(src []byte, start Pos, text string, off int) Pos {
	runes := []rune(text)
	off = min(max(off, 0), len(runes))
	first := []rune(SourceLine(src, start.Line))
	block := false
	if c := start.Col - 1; c >= 0 && c < len(first) && (first[c] == '|' || first[c] == '>') {
		block = c == 0 || first[c-1] != '"' && first[c-1] != '\''
	}
	if !block && !containsRune(runes, '\n') && start.Col-1+len(runes) <= len(first) {
		return Pos{Line: start.Line, Col: start.Col + off}
	}
	cursor := 0
	last := start
	line := start.Line
	if block {
		line++
	}
	for n := 0; cursor < len(runes) && n < len(runes)+2; n, line = n+1, line+1 {
		lr := []rune(SourceLine(src, line))
		col := 0
		if line == start.Line {
			col = start.Col - 1
		} else {
			for col < len(lr) && (lr[col] == ' ' || lr[col] == '\t') {
				col++
			}
			sep := cursor
			for cursor < len(runes) && (runes[cursor] == ' ' || runes[cursor] == '\t' || runes[cursor] == '\n') {
				cursor++
			}
			if off >= sep && off < cursor {
				if cursor == len(runes) {
					// the text's trailing line break (a block scalar's
					// clip), where expr puts its end: the end of the
					// last line, not the line after the block
					return last
				}
				return Pos{Line: line, Col: col + 1}
			}
		}
		if col > len(lr) {
			break
		}
		seg := lr[col:]
		m := 0
		for m < len(seg) && cursor+m < len(runes) && seg[m] == runes[cursor+m] {
			m++
		}
		if off >= cursor && off < cursor+m {
			return Pos{Line: line, Col: col + 1 + off - cursor}
		}
		cursor += m
		if m > 0 {
			last = Pos{Line: line, Col: col + 1 + m}
		}
		if m < len(seg) && cursor < len(runes) && line != start.Line {
			break // the source differs from the text (an escape): give up
		}
	}
	if cursor >= len(runes) && off == len(runes) {
		return last
	}
	return exprLinePos(runes, start, off)
}

// exprLinePos maps a rune offset by counting the text's own lines.
func exprLinePos(runes []rune, start Pos, off int) Pos {
	p := start
	col := start.Col
	for _, r := range runes[:off] {
		if r == '\n' {
			p.Line++
			col = 1
			continue
		}
		col++
	}
	p.Col = col
	return p
}

func containsRune(rs []rune, r rune) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// locateExpr maps an expression compile error to a file position (see exprPos).
func LocateExpr(err error, src []byte, start Pos, text string) *ExprError {
	var fe *file.Error
	if errors.As(err, &fe) {
		return &ExprError{Pos: ExprPos(src, start, text, fe.From), Msg: fe.Message}
	}
	return &ExprError{Pos: start, Msg: err.Error()}
}

// exprStart returns where an expression value written at p starts: inside
// its quotes when it is quoted.
func ExprStart(src []byte, p Pos) Pos {
	line := SourceLine(src, p.Line)
	if p.Col >= 1 && p.Col <= len(line) && (line[p.Col-1] == '"' || line[p.Col-1] == '\'') {
		p.Col++
	}
	return p
}

func IsIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
