package jsonpos

import (
	"fmt"

	"github.com/lppctl/lppctl/machine/spec"
)

// Error is a JSON syntax error at a position, or the JSON holding more
// values than MaxValues (Limit). Scan returns every error as an *Error.
type Error struct {
	Pos spec.Pos
	Msg string
	// Limit: the JSON is well formed as far as read, but holds more values
	// than MaxValues.
	Limit bool
}

// Error reads "line:col: message".
func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg) }
