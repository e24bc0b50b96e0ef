//go:build !race

package main

// raceEnabled tells whether this test binary has the race detector.
const raceEnabled = false
