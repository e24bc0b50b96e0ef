//go:build !race

package lpp

const raceEnabled = false
