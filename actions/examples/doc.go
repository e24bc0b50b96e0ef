// Package examples holds the Skill Contractor's behavioural examples as
// data: what needs no run and no action's dependencies.
//
//   - an example, as a plan gives it (Example, Decode, the kinds
//     KindTypical, KindEdge, KindError) (example.go);
//   - the comparison of an expected value with a run's (SameValue: numbers
//     within a tolerance or the digits they are written with, whole numbers
//     exactly), and values shown in a report (ShowValue, Mismatch,
//     JSONKind, Number, ReportValue) (compare.go);
//   - the vetting of a set of examples (Vet: each example's Problems, the
//     set's kinds and values) and of an independent derivation of their
//     values (CompareDerived) (vet.go);
//   - the example held out from the writer of the code, one whose values
//     the plan's steps do not quote (HeldOutOf) (heldout.go);
//   - the hidden probes two derivations agree on (AgreeProbes) (agree.go).
//
// The actions that use them (spec.examples, examples.vet, examples.agree,
// spec.promises) and their declarations stay in package actions, which
// runs the examples in a sandbox. This package must not import machine's
// run loop (machine), the gateway, actions or actions/agent: of the module
// it imports only internal/textx and internal/fsx.
package examples
