// Package actions holds the general building blocks any agent spec is made
// of, and the dependencies every action takes:
//
//   - Deps: the configuration from the command line, the run's I/O, and the
//     model and the tool gateway, built at their first use (deps.go);
//   - the general actions, GeneralActions (register_general.go,
//     register_examples.go): llm.generate (generate.go, the model call of
//     llmcall.go, JSON replies and schemas), tools.call (toolcall.go),
//     script.run (script.go), spec.validate and spec.run (specaction.go,
//     childrun.go), spec.sandbox (sandbox.go), spec.check (speccheck.go),
//     spec.examples (examples.go), examples.vet (examples_vet.go),
//     examples.agree (examples_agree.go), spec.promises (promises.go),
//     env.read (envread.go) and human.input (humaninput.go, terminal.go);
//     what their examples are, how their values compare, the vetting, the
//     example held out and the probes' agreement, which need no run, are
//     actions/examples;
//   - CheckSpec, the checks of a spec against its actions (check*.go);
//   - Register, which adds action sets to a registry (ActionSet): a child
//     run (spec.run, spec.sandbox, spec.examples) gets a registry of the
//     same sets as its parent;
//   - what the action sets share: prompt templates (templates.go), run
//     memory every model call uses (turns.go, steptokens.go), prompt logs
//     and tracing.
//
// It must not import actions/agent (the Skills Agent's actions build on
// this package, not the other way round) nor anything of the command line
// (cmd/...). The model providers are actions/llm.
//
// Why the Skill Contractor's actions are not a package of their own: the
// actions only its spec calls (spec.examples, spec.promises and the
// blueprint policy of blueprint_policy.go) are built on spec.sandbox and
// spec.validate's internals (examples.go runs each example in a sandbox
// copy; sandbox.go writes the example files with examples.go's
// writeSandboxFiles; the gateway of deps.go and check_policy.go fall back
// to the blueprint policy), and GeneralActions lists them: cut out, they
// would take a dozen of this package's internals with them and be
// referenced back from sandbox.go, deps.go and check_policy.go. They stay
// general building blocks.
package actions
