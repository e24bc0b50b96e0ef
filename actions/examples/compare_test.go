package examples

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAWholeNumberMatchesOnlyItself(t *testing.T) {
	tol := 2.0
	tests := []struct {
		name       string
		want, have any
		tol        *float64
		same       bool
	}{
		{name: "a day number off by one", want: 19723, have: 19724.0},
		{name: "a timestamp off by ten minutes", want: 1704067200.0, have: 1704066600.0},
		{name: "a sum that lost a row of 3", want: 100253, have: int64(100250)},
		{name: "the same whole number as an int and a float", want: 19723, have: 19723.0, same: true},
		{name: "a whole number and a float a rounding away", want: 10000, have: 9999.999999999998, same: true},
		{name: "a fraction within 0.01 %", want: 3.6576, have: 3.65762, same: true},
		{name: "whole numbers within the example's tolerance", want: 100, have: 101, tol: &tol, same: true},
		{name: "whole numbers past 2^53, where every float is whole, within 0.01 %", want: 1e20, have: 1.00000001e20, same: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.same, SameValue(tt.want, tt.have, tt.tol))
		})
	}
}

func TestANumberMatchesWithinTheDigitsItIsWrittenWith(t *testing.T) {
	tests := []struct {
		name       string
		want, have any
		same       bool
	}{
		{name: "a decimal sum that lost its last row", want: 120007.75, have: 120000.5},
		{name: "a whole sum given as a decimal that lost a row", want: 100254, have: 100250.75},
		{name: "a fractional timestamp a day off", want: 1704067200.25, have: 1704153600.25},
		{name: "a decimal sum right to its digits", want: 120007.75, have: 120007.75000000001, same: true},
		{name: "a value rounded to its written digits", want: 3.10686, have: 3.1068559611866697, same: true},
		{name: "a value truncated to its written digits", want: 3.1068, have: 3.1068559611866697, same: true},
		{name: "a value written with a float's rounding noise", want: 3.6576000000000004, have: 3.6576, same: true},
		{name: "a small value within 0.01 %", want: 0.000005, have: 0.0000050000001, same: true},
		{name: "a small value past 0.01 %", want: 0.000005, have: 0.0000051},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.same, SameValue(tt.want, tt.have, nil))
		})
	}
}
