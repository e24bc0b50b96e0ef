package check

// GCLowerAt lets the tests make a check large enough to lower the
// collector's target.
var GCLowerAt = &gcLowerAt

// TrapForwardPasses lets the tests bound the trap search's forward passes
// (0: reverse edges only).
var TrapForwardPasses = &trapForwardPasses
