// Package skills reads, learns into and indexes lppctl's skills.
//
// It has two parts:
//
//   - the skills.md learning store: a skill lives in skills/<name>/skills.md
//     (free prose) and the Skills Agent appends what it learns to the
//     sections "## Success Cases", "## Failure Cases" and "## Human Feedback"
//     (see OpenSkill, AppendSuccess, AppendFailure, AppendFeedback);
//   - the skill library: short, general principles ("skills") learned from
//     runs, stored as one JSON object keyed by name (default
//     .lppctl/skills.json), searched lexically (BM25) or by embeddings, and
//     curated by a teacher LLM through proposals (see Library, Proposal).
//
// Every write is atomic (temporary file in the same directory, fsync, rename,
// fsync of the directory) and every read-modify-write of the library happens
// under an advisory file lock, so separate processes never lose each other's
// updates.
//
// The package imports nothing of lppctl's machine, gateway or actions packages.
package skills
