package spec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestACommandLineNumberBeyondItsTypesRangeSaysSo(t *testing.T) {
	for _, tt := range []struct {
		typ  Type
		in   string
		want string
	}{
		{TypeFloat, "1e400", `"1e400" is beyond a float's range (±1.8e308); give a smaller number`},
		{TypeFloat, "-1e400", `"-1e400" is beyond a float's range (±1.8e308); give a smaller number`},
		{TypeInt, "99999999999999999999", `"99999999999999999999" is beyond an int's range (±9.2e18); give a smaller number`},
		{TypeFloat, "ten", `"ten" is not a float`},
		{TypeInt, "1.5", `"1.5" is not an int`},
	} {
		_, err := tt.typ.ParseValue(tt.in)
		require.Error(t, err, tt.in)
		assert.Equal(t, tt.want, err.Error(), tt.in)
	}
}
