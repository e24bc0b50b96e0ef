package actions

import (
	"errors"
	"fmt"
	"github.com/lppctl/lppctl/actions/replyjson"
	"github.com/lppctl/lppctl/actions/replyschema"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/expr-lang/expr/file"

	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// CheckOptions says where the files a spec's general actions name are
// looked for, as the actions look for them when they run.
type CheckOptions struct {
	Root    string // the project root ("" = the current directory)
	SpecDir string // the folder file parameters are relative to ("" = the spec's folder)
	// Policy is the gateway policy file tools.call is checked against ("" =
	// <Root>/config/tools_config.yaml; when it cannot be loaded, the gateway's
	// built-in sub-commands).
	Policy string
	// NoFiles leaves out what depends on the files a run would read rather
	// than on the spec (a script that does not exist, a schema file that
	// does not, the policy), as validate.WithoutFiles does: lppctl check
	// checks a spec's content wherever it is, validate its project too.
	NoFiles bool
}

// CheckSpec validates what machine.Validate cannot see of the general
// actions' parameters, with positions inside them: llm.generate's schema (it
// must be a JSON Schema) and map (JSON pointers whose schema type must fit
// the variable), its templates' variables; tools.call's command and args
// (sub-commands and parameters the gateway's policy accepts, expressions
// giving what each parameter takes); the expressions of script.run's and spec.run's input; script.run's script; and
// spec.run's child spec (valid, its variables and types, no spec.run cycle).
// Run it after machine.Validate (or machine.Check) on the same spec and add
// its diagnostics to theirs.
func CheckSpec(spec *mspec.Spec, reg *machine.Registry, opts CheckOptions) mspec.Diagnostics {
	if spec == nil {
		return nil
	}
	abs, _ := filepath.Abs(spec.File)
	return checkSpec(spec, reg, opts, []string{abs})
}

func checkSpec(spec *mspec.Spec, reg *machine.Registry, opts CheckOptions, stack []string) mspec.Diagnostics {
	if opts.Root == "" {
		opts.Root = "."
	}
	if opts.SpecDir == "" {
		opts.SpecDir = filepath.Dir(spec.File)
	}
	k := &checker{spec: spec, reg: reg, opts: opts, stack: stack, nodes: parseSpecNodes(spec.Source), env: mspec.TypeEnv(spec)}
	for _, st := range spec.States {
		k.hiddenFiles(st)
		switch st.Do {
		case "llm.generate":
			k.generate(st)
		case "tools.call":
			k.toolsCall(st)
		case "script.run":
			k.scriptRun(st)
		case "spec.validate":
			k.exprParam(st, "path", mspec.TypeString)
		case "spec.run":
			k.specRun(st)
		}
	}
	k.diags.Sort()
	return k.diags
}

type checker struct {
	spec  *mspec.Spec
	reg   *machine.Registry
	opts  CheckOptions
	stack []string // the specs being checked through spec.run, outermost first, this one last (absolute)
	nodes *specNodes
	env   map[string]any
	diags mspec.Diagnostics
	cmds  *toolCommands // loaded on first use by toolsCall
	pol   *checkPolicy  // loaded on first use (runPolicy)
}

func (k *checker) errorf(p mspec.Pos, span int, hint, format string, args ...any) {
	k.diags = append(k.diags, mspec.Diagnostic{Severity: mspec.SevError, File: k.spec.File, Pos: p, Span: span, Msg: fmt.Sprintf(format, args...), Hint: hint})
}

// paramError reports a problem with the value of a state's parameter.
func (k *checker) paramError(st *mspec.State, p *mspec.Param, hint, format string, args ...any) {
	pos, span := k.nodes.valuePos(st, p)
	k.errorf(pos, span, hint, "parameter %q of action %q: %s", p.Name, st.Do, fmt.Sprintf(format, args...))
}

func (k *checker) generate(st *mspec.State) {
	if findParam(st, "output") == nil && findParam(st, "map") == nil && !k.nodes.misspelt(st.Name, "with") {
		k.errorf(st.DoPos, len(st.Do), "output: VAR takes the reply's text; map: {VAR: /pointer} takes fields of a JSON reply",
			"action %q needs output: or map:, or the reply goes nowhere", st.Do)
	}
	for _, name := range []string{"prompt", "system"} {
		k.template(st, name)
	}
	var schema *replyschema.Schema
	if p := findParam(st, "schema"); p != nil && !k.missingFile(p) {
		var err error
		if schema, err = replyschema.Load(p.Value, k.opts.SpecDir, k.opts.Root, namedReader(k.hidePolicy(), k.opts.SpecDir, k.opts.Root)); err != nil {
			hint := "write a JSON Schema, e.g. {type: object, properties: {summary: {type: string}}, required: [summary]}"
			if errors.Is(err, errHiddenFile) {
				hint = hideHint
			}
			var pe *replyschema.PathError
			if _, inline := p.Value.(map[string]any); inline && errors.As(err, &pe) {
				if at, span, ok := k.nodes.schemaPos(st, pe); ok {
					k.errorf(at, span, hint, "parameter %q of action %q: %v", p.Name, st.Do, err)
					return
				}
			}
			k.paramError(st, p, hint, "%v", err)
		}
	}
	for _, e := range k.nodes.entries(st, "map") {
		ptr, ok := e.Value.(string)
		if !ok {
			k.errorf(e.VPos, e.VSpan, "write a JSON pointer into the reply, e.g. /summary", "map.%s of action %q must be a JSON pointer, not %s", e.Key, st.Do, describe(e.Value))
			continue
		}
		if _, err := replyjson.PointerSegments(ptr); err != nil {
			k.errorf(e.VPos, e.VSpan, "a JSON pointer starts with /, e.g. /summary or /items/0/name", "map.%s of action %q: %v", e.Key, st.Do, err)
			continue
		}
		if schema == nil {
			continue
		}
		jt, err := schema.TypeAt(ptr)
		if err != nil {
			k.errorf(e.VPos, e.VSpan, "point at a property the schema declares", "map.%s of action %q: %v", e.Key, st.Do, err)
			continue
		}
		if parent, name, ok := schema.OptionalAt(ptr); ok {
			where := "the schema's required"
			if parent != "/" {
				where = "the required of the schema at " + parent
			}
			k.diags = append(k.diags, mspec.Diagnostic{Severity: mspec.SevWarning, File: k.spec.File, Pos: e.VPos, Span: e.VSpan,
				Msg:  fmt.Sprintf("map.%s of action %q: the schema does not require %s, so a valid reply may leave it out and %s then keeps its value", e.Key, st.Do, ptr, e.Key),
				Hint: fmt.Sprintf("add %q to %s, or give %s a default that means \"absent\"", name, where, e.Key)})
		}
		if v := k.spec.Var(e.Key); v != nil && jt != "" && !replyschema.FitsVar(jt, v.Type) {
			k.errorf(e.KPos, len(e.Key), fmt.Sprintf("declare %s with a type that holds a JSON %s, or map another property", e.Key, jt),
				"map.%s of action %q: the schema gives %s a JSON %s, but context variable %q is %s", e.Key, st.Do, ptr, jt, e.Key, v.Type)
		}
	}
	if p := findParam(st, "tools"); p != nil {
		list, _ := p.Value.([]any)
		for _, t := range list {
			if s, _ := t.(string); s != gateway.ToolCLI && s != gateway.ToolRunner {
				k.paramError(st, p, fmt.Sprintf("the gateway's tools are %s and %s", gateway.ToolCLI, gateway.ToolRunner), "%v is not a gateway tool", t)
			}
		}
	}
	k.atLeast(st, "repairs", 0)
	k.atLeast(st, "max_rounds", 1)
}

// template checks that a template file parameter parses, and that the
// context variables and event payload fields it reads exist (rendered with
// their zero values, .event as templateData gives it).
func (k *checker) template(st *mspec.State, name string) {
	p := findParam(st, name)
	if p == nil {
		return
	}
	fname, _ := p.Value.(string)
	found, _ := mspec.ResolveFile(fname, k.opts.SpecDir, k.opts.Root)
	if found == "" {
		return // machine.Validate reports it
	}
	src, err := readNamed(k.hidePolicy(), fname, found, k.opts.SpecDir, k.opts.Root)
	if err != nil {
		return // machine.Validate reports it, or hiddenFiles
	}
	t, err := parseGeneralTemplate(filepath.Base(found), string(src), func(string) (any, error) { return nil, nil })
	if err != nil {
		k.paramError(st, p, "see https://pkg.go.dev/text/template for the syntax", "template %s does not parse: %v", fname, err)
		return
	}
	env := k.env
	if k.spec.Var(mspec.VarEvent) == nil {
		env = maps.Clone(k.env)
		env[mspec.VarEvent] = eventData(k.spec, st.Name, "", nil)
	}
	err = t.Execute(discard{}, env)
	m := missingKeyRE.FindStringSubmatch(fmt.Sprint(err))
	if m == nil {
		return
	}
	node, key := m[1], m[2]
	switch {
	case node == "."+key && k.spec.Var(key) != nil:
		// a variable whose type is unknown (reported): templates cannot read it yet
	case node == "."+key:
		hint := didYouMean(key, varNames(k.spec))
		if hint == "" {
			hint = "templates read the context variables: " + strings.Join(varNames(k.spec), ", ")
		}
		k.paramError(st, p, hint, "template %s reads .%s, which is not a context variable", fname, key)
	case node == ".event.payload."+key:
		hint := describeEntryEvents(k.spec, st.Name)
		if dym := didYouMean(key, fieldNames(entryFields(k.spec, st.Name))); dym != "" {
			hint = dym + " " + hint
		}
		k.paramError(st, p, hint,
			"template %s reads %s, but no event that enters state %q declares payload field %q", fname, node, st.Name, key)
	case node == ".event."+key:
		k.paramError(st, p, "an event has .event.name and .event.payload.FIELD", "template %s reads %s, which an event does not have", fname, node)
	default:
		k.paramError(st, p, "", "template %s reads %s, which has no %q", fname, node, key)
	}
}

// missingKeyRE matches text/template's error for a missing map key: the
// node that read it and the key.
var missingKeyRE = regexp.MustCompile(`at <([^>]*)>: map has no entry for key "([^"]*)"`)

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func varNames(spec *mspec.Spec) []string {
	out := make([]string, 0, len(spec.Context))
	for _, v := range spec.Context {
		out = append(out, v.Name)
	}
	return out
}

// atLeast checks that an int parameter, when given, is at least min.
func (k *checker) atLeast(st *mspec.State, name string, min int) {
	if p := findParam(st, name); p != nil {
		if n, ok := p.Value.(int); ok && n < min {
			k.paramError(st, p, fmt.Sprintf("give %d or more", min), "%d is less than %d", n, min)
		}
	}
}

func (k *checker) scriptRun(st *mspec.State) {
	if p := findParam(st, "script"); p != nil {
		if name, ok := p.Value.(string); ok {
			clean := filepath.ToSlash(filepath.Clean(name))
			switch {
			case filepath.IsAbs(name) || !filepath.IsLocal(clean):
				k.paramError(st, p, "scripts are named relative to the project root, e.g. scripts/check.py", "%q is not a path inside the project", name)
			case !strings.HasSuffix(clean, ".py"):
				k.paramError(st, p, "script.run runs Python scripts", "%q is not a .py file", name)
			default:
				if k.opts.NoFiles {
					break
				}
				if _, err := os.Stat(filepath.Join(k.opts.Root, clean)); err != nil {
					k.paramError(st, p, "scripts are named relative to the project root, under a script directory of the policy (scripts/, skills/NAME/)", "script %q not found in the project root %s", name, k.opts.Root)
				} else if pol := k.runPolicy(); pol.policy != nil && !pol.policy.InScriptDir(clean) {
					dirs := strings.Join(pol.policy.Runner.ScriptDirs, ", ")
					k.paramError(st, p, "move the script under one of them, or add its folder to safe_py_runner.script_dirs in the policy", "script %q is outside the script directories of the policy %s (%s): the run would refuse it ([SECURITY BLOCKED] script-location)", name, pol.shown, dirs)
				}
			}
		}
	}
	k.exprEntries(st, "input", nil)
	for _, e := range k.nodes.entries(st, "output") {
		if s, ok := e.Value.(string); !ok || s == "" {
			k.errorf(e.VPos, e.VSpan, "name the key of the script's JSON object whose value the variable gets", "output.%s of action %q must be a key name, not %s", e.Key, st.Do, describe(e.Value))
		}
	}
	for _, e := range k.nodes.entries(st, "defines") {
		if s, ok := e.Value.(string); !ok || s == "" {
			k.errorf(e.VPos, e.VSpan, "name the key of the script's JSON object whose presence sets the variable true", "defines.%s of action %q must be a key name, not %s", e.Key, st.Do, describe(e.Value))
		}
	}
}

// missingFile reports, with NoFiles, that parameter p names a file that
// cannot be found (a run would need it; the check does not).
func (k *checker) missingFile(p *mspec.Param) bool {
	name, ok := p.Value.(string)
	if !ok || !k.opts.NoFiles {
		return false
	}
	found, _, err := mspec.LocateFile(name, k.opts.SpecDir, k.opts.Root)
	return found == "" && err == nil
}

// exprParam checks that an expr parameter's value gives a t.
func (k *checker) exprParam(st *mspec.State, name string, t mspec.Type) {
	p := findParam(st, name)
	if p == nil {
		return
	}
	src, ok := exprText(p.Value)
	if !ok {
		return // machine.Validate reports it
	}
	if _, err := mspec.CompileValue(src, t, k.env); err != nil && !errors.Is(err, mspec.ErrFloatToInt) {
		if _, err2 := mspec.CompileValue(src, mspec.TypeAny, k.env); err2 != nil {
			return // it does not compile at all: machine.Validate reports it
		}
		k.paramError(st, p, fmt.Sprintf("the expression must give a %s", t), "%v", exprMessage(err))
	}
}

// exprEntries checks the expressions of a map parameter; types, when not
// nil, gives the type each key's expression must have.
func (k *checker) exprEntries(st *mspec.State, param string, types func(key string) mspec.Type) {
	for _, e := range k.nodes.entries(st, param) {
		src, ok := exprText(e.Value)
		if !ok {
			k.errorf(e.VPos, e.VSpan, "write the expression as text, e.g. retries + 1 or '\"a string\"'", "%s.%s of action %q must be an expression, not %s", param, e.Key, st.Do, describe(e.Value))
			continue
		}
		t := mspec.TypeAny
		if types != nil {
			t = types(e.Key)
		}
		if _, err := mspec.CompileValue(src, t, k.env); err != nil {
			pos := e.VPos
			if e.Quoted {
				pos.Col++
			}
			var fe *file.Error
			if errors.As(err, &fe) && fe.Line <= 1 {
				pos.Col += fe.Column
			}
			span, hint := 1, "expressions read the context variables: "+strings.Join(varNames(k.spec), ", ")
			if m := unknownNameRE.FindStringSubmatch(exprMessage(err)); m != nil {
				if cv := k.spec.Var(m[1]); cv != nil && cv.Type == mspec.TypeAny {
					continue // a variable whose type is unknown (reported): its uses cannot be checked
				}
				span = len(m[1])
				if dym := didYouMean(m[1], varNames(k.spec)); dym != "" {
					hint = dym
				}
			} else if t != mspec.TypeAny {
				hint = fmt.Sprintf("the value must be a %s", t)
			}
			k.errorf(pos, span, hint, "%s.%s of action %q: %s", param, e.Key, st.Do, exprMessage(err))
		}
	}
}

// unknownNameRE matches expr's message for a name the environment lacks.
var unknownNameRE = regexp.MustCompile(`^unknown name ([A-Za-z_][A-Za-z0-9_]*)`)

// exprMessage is expr's message without its source snippet.
func exprMessage(err error) string {
	var fe *file.Error
	if errors.As(err, &fe) {
		return fe.Message
	}
	return err.Error()
}

// valueOf returns the value of a state's parameter (nil when absent).
func valueOf(st *mspec.State, name string) any {
	if p := findParam(st, name); p != nil {
		return p.Value
	}
	return nil
}

// stackNames renders a chain of spec files for messages: a.yaml runs b.yaml.
func stackNames(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	return strings.Join(names, " runs ")
}

func (k *checker) specRun(st *mspec.State) {
	p := findParam(st, "spec")
	if p == nil {
		return
	}
	name, _ := p.Value.(string)
	found, _ := mspec.ResolveFile(name, k.opts.SpecDir, k.opts.Root)
	if found == "" {
		return // machine.Validate reports it
	}
	abs, _ := filepath.Abs(found)
	if i := slices.Index(k.stack, abs); i >= 0 {
		k.paramError(st, p, "a spec cannot run itself, directly or through other specs", "spec.run cycle: %s", stackNames(append(slices.Clone(k.stack[i:]), abs)))
		return
	}
	if path := runsBack(abs, k.stack, k.opts.Root, nil); path != nil {
		k.paramError(st, p, "a spec cannot run itself, directly or through other specs", "spec.run cycle: %s", stackNames(append([]string{k.stack[len(k.stack)-1]}, path...)))
		return
	}
	k.atLeast(st, "max_depth", 1)
	src, err := readNamed(k.hidePolicy(), name, found, k.opts.SpecDir, k.opts.Root)
	if err != nil {
		return // machine.Validate reports it, or hiddenFiles
	}
	if !mspec.LooksLikeSpec(src) {
		k.paramError(st, p, "name a spec file of the project", "child spec %s: %s", name, notASpec)
		return
	}
	vopts := []validate.ValidateOption{validate.WithRoot(k.opts.Root)}
	if k.opts.NoFiles {
		vopts = append(vopts, validate.WithoutFiles())
	}
	child, diags := validate.Check(found, src, k.reg, vopts...)
	if child != nil {
		diags = append(diags, checkSpec(child, k.reg, CheckOptions{Root: k.opts.Root, Policy: k.opts.Policy, NoFiles: k.opts.NoFiles}, append(slices.Clone(k.stack), abs))...)
	}
	if errs := diags.Errors(); len(errs) > 0 {
		k.paramError(st, p, "lppctl validate "+found+" shows them all", "child spec %s is invalid (%d error(s)); the first: %s", name, len(errs), errs[0].String())
		return
	}
	if child == nil {
		return
	}
	k.exprEntries(st, "input", func(key string) mspec.Type {
		if v := child.Var(key); v != nil {
			return v.Type
		}
		return mspec.TypeAny
	})
	for _, e := range k.nodes.entries(st, "input") {
		if child.Var(e.Key) == nil {
			k.errorf(e.KPos, len(e.Key), childHint(e.Key, child), "input.%s of action %q: child spec %s has no context variable %q", e.Key, st.Do, name, e.Key)
		}
	}
	for _, e := range k.nodes.entries(st, "output") {
		cname, ok := e.Value.(string)
		if !ok {
			k.errorf(e.VPos, e.VSpan, "name a context variable of the child", "output.%s of action %q must be a child variable's name, not %s", e.Key, st.Do, describe(e.Value))
			continue
		}
		cv := child.Var(cname)
		if cv == nil {
			k.errorf(e.VPos, e.VSpan, childHint(cname, child), "output.%s of action %q: child spec %s has no context variable %q", e.Key, st.Do, name, cname)
			continue
		}
		if pv := k.spec.Var(e.Key); pv != nil && pv.Type != cv.Type && pv.Type != mspec.TypeAny && cv.Type != mspec.TypeAny {
			k.errorf(e.KPos, len(e.Key), fmt.Sprintf("declare %s as %s, or copy a child variable of type %s", e.Key, cv.Type, pv.Type),
				"output.%s of action %q: child variable %q is %s, but context variable %q is %s", e.Key, st.Do, cname, cv.Type, e.Key, pv.Type)
		}
	}
}

func childHint(name string, child *mspec.Spec) string {
	if h := didYouMean(name, varNames(child)); h != "" {
		return h
	}
	return "the child's context variables: " + strings.Join(varNames(child), ", ")
}

// runsBack returns a chain of spec files from spec (included) through the
// constant spec.run parameters of their states that ends in a spec of
// stack, or nil when there is none. Only the files are parsed.
func runsBack(spec string, stack []string, root string, seen map[string]bool) []string {
	if seen == nil {
		seen = map[string]bool{}
	}
	if seen[spec] {
		return nil
	}
	seen[spec] = true
	src, err := mspec.ReadNamedFile(spec, filepath.Dir(spec), root)
	if err != nil || !mspec.LooksLikeSpec(src) {
		return nil
	}
	s, _ := mspec.Parse(spec, src)
	if s == nil {
		return nil
	}
	for _, st := range s.States {
		if st.Do != "spec.run" {
			continue
		}
		name, _ := valueOf(st, "spec").(string)
		found, _ := mspec.ResolveFile(name, filepath.Dir(spec), root)
		if found == "" {
			continue
		}
		next, _ := filepath.Abs(found)
		if slices.Contains(stack, next) {
			return []string{spec, next}
		}
		if rest := runsBack(next, stack, root, seen); rest != nil {
			return append([]string{spec}, rest...)
		}
	}
	return nil
}
