package skills

import "errors"

// Sentinel errors. Returned errors wrap them with context; test with errors.Is.
var (
	// ErrNotFound reports a skill, skill document or proposal target that does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalid reports a name, field, entry ID or argument that fails validation.
	ErrInvalid = errors.New("invalid")
	// ErrNoProposals reports a teacher reply that holds no JSON array of proposals.
	ErrNoProposals = errors.New("no JSON array of proposals in the reply")
	// ErrSeveralProposalLists reports a teacher reply that holds several
	// different lists of proposals (a draft, then the answer), none of which
	// is taken.
	ErrSeveralProposalLists = errors.New("different lists of proposals")
)
