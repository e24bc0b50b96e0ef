package actions

// The model calls' turns: which call of a caller (the scripted model's
// cursor) a call is, and which model the run began with.

import (
	"fmt"

	"github.com/lppctl/lppctl/machine"
)

// Run memory slots every model call uses (journaled with the run).
const (
	MemTurns = "turns" // value: {"agent/step": calls made}, the scripted model's cursor
	MemModel = "model" // value: the model of the run's first call ("openai:gpt-4o-mini")
)

// nextTurn returns how many calls agent made in step so far and records one more.
func nextTurn(tx machine.MemoryTx, agent string, step int) (int, error) {
	turns := map[string]int{}
	if _, err := tx.Get(MemTurns, &turns); err != nil {
		return 0, err
	}
	key := fmt.Sprintf("%s/%d", agent, step)
	n := turns[key]
	turns[key] = n + 1
	return n, tx.Put(MemTurns, turns)
}
