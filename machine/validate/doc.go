// Package validate checks a decoded spec against an action registry:
// Validate reports every problem it finds as positioned diagnostics with a
// hint (states and transitions, actions and their parameters, expressions
// and their types, events and payloads, cycles without a bound, values that
// cannot be stored, the keys the model checker reads), and Check is Parse
// followed by Validate. exprhint.go turns expr's compile errors into hints.
//
// It imports package machine for the spec model, the diagnostics, the
// registry's action signatures and the expression environment (TypeEnv,
// CompileGuard), never the run loop (Run, Call, delivery, memory), the
// model checker, the exporters, nor any LLM, tool or skill package. The
// runtime does not import it: Compile takes a spec the caller has
// validated.
package validate
