package spec

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAValueIsNeverDescribedByItsGoType: a value a set cannot store (what
// expr's fromPairs, groupBy or a Go handler gives) is described in the
// spec's words; the message once read "map[interface {}]interface {} is
// not a map".
func TestAValueIsNeverDescribedByItsGoType(t *testing.T) {
	for _, c := range []struct {
		v    any
		t    Type
		want string
	}{
		{map[any]any{"k": 3}, TypeMap, "a map whose keys are not all strings (fromPairs and groupBy make such maps; build it with merge or a map literal) is not a map"},
		{map[any][]any{1: nil}, TypeList, "a map whose keys are not all strings (fromPairs and groupBy make such maps; build it with merge or a map literal) is not a list"},
		{[]int{1}, TypeList, "a list of a kind lppctl does not store is not a list"},
		{uint8(7), TypeString, "int 7 is not a string"},
		{struct{}{}, TypeMap, "a value of a kind lppctl does not store is not a map"},
	} {
		_, err := c.t.Coerce(c.v)
		if assert.Error(t, err) {
			assert.Equal(t, c.want, err.Error())
		}
	}
}
