package check

// GCLowerAt lets the tests make a check large enough to lower the
// collector's target.
var GCLowerAt = &gcLowerAt
