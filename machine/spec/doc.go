// Package spec is the spec model: the types of a declarative state-machine
// spec (Spec, State, Transition, Var, EventDecl, ...), its YAML decoding
// with positions (Load, Parse; the keys only the model checker reads too,
// check_spec.go), the diagnostics and their hints (Diagnostic, Diagnostics,
// DidYouMean), the JSON Schema of the format (JSONSchema, JSONSchemaFor),
// the expression language a spec is written in (TypeEnv, ExprOptions, the
// checked arithmetic, CompileGuard, CompileValue, positions in
// expressions), the variable types and their values (Type, Coerce, Format,
// storable and size-limited values), notes, and the files a spec names
// (LocateFile, ReadNamedFile).
//
// It is what every stage reads: machine (compile and run), machine/validate,
// machine/check, machine/export, machine/lpp, machine/runstore, and the
// commands. It knows the action registry only as ActionNames (the names
// the schema enumerates under `do`).
//
// It must not import the runtime (package machine: compilation, the run
// loop, events, memory, the registry, the built-in actions), any other
// package under machine/ but its own machine/spec/yamlsrc (the YAML text:
// lines, and where a syntax error's mistake is), nor any LLM, tool or
// skill package; of the module it imports only internal/textx and
// yamlsrc. internal/layout's test keeps it
// so. It was moved out of machine by a generated rewrite
// (docs/layout.md).
package spec
