package spec

import (
	"errors"

	"gopkg.in/yaml.v3"
)

// aliasError is an error found while expanding an alias, located at the
// alias as written in the value (*name), not at the anchor it names nor at
// the whole value: that is where an alias bomb goes off.
type aliasError struct {
	use *yaml.Node
	err error
}

func (e *aliasError) Error() string { return e.err.Error() }
func (e *aliasError) Unwrap() error { return e.err }

// valueErrorAt returns where to report err, an error of converting the value
// n: at the alias use it names, else at n.
func valueErrorAt(n *yaml.Node, err error) (Pos, int) {
	var ae *aliasError
	if errors.As(err, &ae) {
		return pos(ae.use), len([]rune(ae.use.Value)) + 1 // *name
	}
	return pos(n), span(n)
}
