package machine

// Quiet reports whether the run holds no event that no state has taken yet
// (sent from outside, or emitted by an action): a run rebuilt from its
// records (Resume) then stands exactly where this one does.
func (r *Run) Quiet() bool {
	r.drain()
	return len(r.queue) == 0 && len(r.internal) == 0
}
