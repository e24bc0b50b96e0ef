package replyschema

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The library writes a bound as a fraction and a float (150/1, 100.000000):
// messages show them as plain numbers.
func TestSchemaBoundsReadAsPlainNumbers(t *testing.T) {
	for in, want := range map[string]string{
		"validating /properties/score: maximum: 150/1 is greater than 100.000000": "validating /properties/score: maximum: 150 is greater than 100",
		"validating /properties/score: minimum: -5/2 is less than 0.000000":       "validating /properties/score: minimum: -2.5 is less than 0",
		"exclusiveMaximum: 3/1 is greater than or equal to 2.500000":              "exclusiveMaximum: 3 is greater than or equal to 2.5",
		`minLength: "" contains 0 Unicode code points, fewer than 1`:              `minLength: "" contains 0 Unicode code points, fewer than 1`,
	} {
		assert.Equal(t, want, plainBounds(in))
	}
	assert.Equal(t, "maximum: 150 is greater than 100", plainBounds(errors.New("maximum: 150/1 is greater than 100.000000").Error()))
}
