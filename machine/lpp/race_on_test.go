//go:build race

package lpp

// raceEnabled: the race detector makes sync.Pool drop items on purpose, so
// allocation budgets are not measured under it.
const raceEnabled = true
