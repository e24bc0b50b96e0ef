package jsonpos_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine/lpp/jsonpos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnObjectOfManyKeysIsReadInLinearTime: finding a repeated key scans
// an object's keys only while they are few.
func TestAnObjectOfManyKeysIsReadInLinearTime(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"$schema": "lpp/v0.2.0", "id": "d", "name": "d", "version": "1", "states": {"a": {}}, "entry_state": "a", "terminal_states": {"a": {}}, "transitions": [], "display": {`)
	for i := 0; i < 40000; i++ {
		fmt.Fprintf(&b, `"k%d": 1, `, i)
	}
	b.WriteString(`"k7": 2}}`)
	root, sc, err := jsonpos.Scan([]byte(b.String()), false)
	require.NoError(t, err)
	disp := root.Get("display")
	require.Len(t, disp.Members, 40000)
	assert.Equal(t, "2", disp.Get("k7").Str)
	require.Len(t, sc.Dups, 1)
}
