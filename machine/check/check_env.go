package check

import mspec "github.com/lppctl/lppctl/machine/spec"

// The environment of the pair being expanded: env, a Go map from names to
// values, is what expr programs run against, but most evaluations read no
// map: compiled programs (check_fast.go) read envVals, memo hits
// (check_memo.go) only the values' ids. So a slot's value is set in envIDs
// and envVals, and written into the map only when expr runs (syncEnv): a
// move whose guards and sets are all compiled or memoised writes nothing
// into the map.

// setEnv sets a slot's value (and its id) in env, remembering it for restoreEnv.
// A value with the id env's has is not written again.
func (x *Explorer) setEnv(slot int, v any, id uint32) {
	if x.envIDs[slot] == id {
		return
	}
	x.put(slot, v, id)
	x.dirty = append(x.dirty, slot)
}

// restoreEnv puts back the values of ids for the slots set since mark.
func (x *Explorer) restoreEnv(ids []uint32, mark int) {
	for _, s := range x.dirty[mark:] {
		if x.envIDs[s] != ids[s] {
			x.put(s, x.values.values[ids[s]], ids[s])
		}
	}
	x.dirty = x.dirty[:mark]
}

// put sets a slot's value, for the map to take at the next syncEnv.
func (x *Explorer) put(slot int, v any, id uint32) {
	x.envIDs[slot], x.envVals[slot] = id, v
}

// syncEnv writes into the map the values it does not hold, and returns it.
// It runs only before expr does (a compiled program reads envVals), so it
// compares every slot rather than keep a list of those put since.
func (x *Explorer) syncEnv() map[string]any {
	for s, id := range x.envIDs {
		if x.mapIDs[s] != id {
			x.env[x.names[s]] = x.envVals[s]
			x.mapIDs[s] = id
		}
	}
	x.env[mspec.VarState] = x.envState
	return x.env
}
