package actions

import (
	"context"
	"fmt"
	"math"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/actions/examples"
	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// specPromises is spec.promises: it checks what a generated skill's spec
// promises against what will be there when the skill is installed, so a
// blueprint that can never work is refused while it can still be rewritten:
//   - every script a script.run state runs lies in the skill's installed
//     folder (skill_path, e.g. skills/word_stats/), under scripts/, as a .py
//     file;
//   - with scripts, each of those scripts is in the folder dir and names
//     every key of the state's input map (what it reads) and of its output
//     map (what it prints) as a word (a string literal, or a parameter of
//     main(**data)); lpp_function, which an L++ compute unit is sent besides
//     its input_map, excepted;
//   - every variable an example gives (vars) or checks (expect, contains) is
//     a context variable of the spec, and each value has the variable's type
//     (a number for a float, a text for a string: the string "12" is not the
//     number 12).
//
// An example named by held_out (its number, from 1) is reported without its
// name or values (heldOutHead): the report is the writer's feedback.
//
// It writes whether every promise holds and a report, one problem a line,
// positioned in the spec, each saying how to fix it; examples_bad says that
// an example's value has the wrong type (the example may be what is wrong);
// spec_report holds the problems that name no example, which a writer may
// still be told when the examples are written again (the old examples'
// values could be those of the next held-out one).
func (d *Deps) specPromises(ctx context.Context, c *machine.Call) error {
	specPath, reg, root, src, failure, err := d.readSpecParam(ctx, c, "spec.promises", "check")
	if err != nil {
		return err
	}
	if failure != "" {
		return setNamedVars(c, map[string]any{"ok": false, "report": failure, "spec_report": failure})
	}
	skillPath, err := stringParam(c, "skill_path")
	if err != nil {
		return err
	}
	skillPath = strings.TrimSuffix(skillPath, "/")
	dir := ""
	if c.Param("dir") != nil {
		if dir, err = stringParam(c, "dir"); err != nil {
			return err
		}
	}
	withScripts, err := boolParam(c, "scripts")
	if err != nil {
		return err
	}
	exampleList, _ := c.Param("examples").([]any)
	heldOut := map[int]bool{}
	if c.Param("held_out") != nil {
		nums, ok := c.Param("held_out").([]any)
		if !ok {
			return fmt.Errorf("held_out of spec.promises must give a list of example numbers, not %s", describe(c.Param("held_out")))
		}
		for _, v := range nums {
			if f, ok := number(v); ok {
				heldOut[int(f)] = true
			}
		}
	}
	s := decodeSource(reg, root, specPath, src, validate.WithoutFiles())
	if s.spec == nil {
		// Validation reports why; nothing here can be checked.
		return setNamedVars(c, map[string]any{"ok": true, "report": specPath + ": not decoded; the validation reports why"})
	}
	var problems []string
	namesNoExample := 0 // problems[:namesNoExample] name no example (they come first)
	specsFault := false // a problem only a new blueprint fixes
	where := func(pos mspec.Pos) string {
		if s.tr == nil && pos.Line > 0 {
			return fmt.Sprintf("%s:%d:%d", specPath, pos.Line, pos.Col)
		}
		return specPath
	}
	var rootFS *os.Root
	if withScripts {
		if rootFS, err = os.OpenRoot(root); err != nil {
			return fmt.Errorf("cannot open the project root: %w", err)
		}
		defer rootFS.Close()
	}
	for _, st := range s.spec.States {
		if st.Do != "script.run" {
			continue
		}
		p := findParam(st, "script")
		if p == nil {
			continue
		}
		script, _ := p.Value.(string)
		rel, inSkill := strings.CutPrefix(path.Clean(strings.ReplaceAll(script, `\`, "/")), skillPath+"/")
		if !inSkill || !strings.HasPrefix(rel, "scripts/") || !strings.HasSuffix(rel, ".py") || strings.Contains(rel, "..") {
			base := strings.TrimSuffix(path.Base(script), ".py")
			if base == "" || base == "." || base == "/" {
				base = "NAME"
			}
			specsFault = true
			problems = append(problems, fmt.Sprintf("%s: state %q runs %s, which is not a script of the skill: name it %s/scripts/%s.py (the skill is installed as %s/; each script the spec runs is written in its scripts/ folder)", where(p.VPos), st.Name, script, skillPath, base, skillPath))
			continue
		}
		if !withScripts {
			continue
		}
		text, err := rootFS.ReadFile(path.Join(dir, rel))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: state %q runs %s, but no step wrote %s in %s; plan and write it", where(p.VPos), st.Name, script, rel, dir))
			continue
		}
		for _, m := range []struct{ param, what string }{{"input", "reads"}, {"output", "prints"}} {
			mp := findParam(st, m.param)
			if mp == nil {
				continue
			}
			obj, _ := mp.Value.(map[string]any)
			keys := make([]string, 0, len(obj))
			for k, v := range obj {
				if m.param == "output" {
					k, _ = v.(string)
				}
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if k != "" && k != "lpp_function" && !namesKey(string(text), k) {
					problems = append(problems, fmt.Sprintf("%s: %s never names %q, the key state %q %s (its %s map); make the script use the keys the spec's %s map names, or change the map", where(mp.VPos), rel, k, st.Name, map[string]string{"input": "sends it", "output": "reads from it"}[m.param], m.param, m.param))
				}
			}
		}
	}
	namesNoExample = len(problems)
	declared := map[string]bool{}
	types := map[string]*mspec.Var{}
	for _, v := range s.spec.Context {
		declared[v.Name] = true
		types[v.Name] = v
	}
	examplesBad := false
	written := writtenVars(s.spec)
	for i, raw := range exampleList {
		ex, _ := raw.(map[string]any)
		head := fmt.Sprintf("example %d %q", i+1, fmt.Sprint(ex["name"]))
		if heldOut[i+1] {
			// Never its name (it may tell the inputs) or its values: the
			// report is the feedback of the blueprint's and the code's writer.
			decoded, _ := examples.Decode(raw)
			head = heldOutHead(i+1, decoded)
		}
		for _, part := range []string{"vars", "expect", "contains"} {
			m, _ := ex[part].(map[string]any)
			for _, name := range sortedKeys(m) {
				if declared[name] && part != "vars" && !written[name] {
					specsFault = true
					problems = append(problems, fmt.Sprintf("%s: %s checks %q, but no state writes it (a script.run output, a set, a tool's result): make the state that computes it write it", specPath, head, name))
				}
				if !declared[name] {
					specsFault = true
					problems = append(problems, fmt.Sprintf("%s: %s %s %q, which is not a context variable of the spec: declare it (the examples were written from the target; the spec must take their inputs and give their outputs)", specPath, head, map[string]string{"vars": "gives", "expect": "expects", "contains": "checks"}[part], name))
					continue
				}
				if msg := typeMismatch(types[name], part, m[name], heldOut[i+1]); msg != "" {
					specsFault, examplesBad = true, true
					problems = append(problems, fmt.Sprintf("%s: %s %s", specPath, head, msg))
				}
			}
		}
	}
	report := specPath + ": its scripts and the examples' variables are where the spec says"
	if len(problems) > 0 {
		report = strings.Join(problems, "\n")
	}
	blame := ""
	switch {
	case specsFault:
		blame = "blueprint"
	case len(problems) > 0:
		blame = "implementation"
	}
	c.Notef("promises of %s: %d problem(s)", specPath, len(problems))
	return setNamedVars(c, map[string]any{"ok": len(problems) == 0, "report": report, "blame": blame, "examples_bad": examplesBad, "spec_report": strings.Join(problems[:namesNoExample], "\n")})
}

// typeMismatch says how an example's value for v (in part: vars, expect or
// contains) does not fit v's type, and how to write it; "" when it fits.
// hidden (the example is held out from the writer) leaves the value out.
func typeMismatch(v *mspec.Var, part string, value any, hidden bool) string {
	verb := map[string]string{"vars": "gives", "expect": "expects", "contains": "checks"}[part]
	if part == "contains" {
		if v.Type == mspec.TypeString || v.Type == mspec.TypeAny {
			return ""
		}
		return fmt.Sprintf("checks that %s holds a text, but %s is a %s in the spec: check it with expect, or make it a string", v.Name, v.Name, v.Type)
	}
	if value == nil && v.Nullable || valueFits(v.Type, value) {
		return ""
	}
	fix := fmt.Sprintf("give a %s", v.Type)
	if str, isStr := value.(string); isStr && (v.Type == mspec.TypeInt || v.Type == mspec.TypeFloat) {
		if f, err := strconv.ParseFloat(strings.TrimSpace(str), 64); err == nil && (v.Type == mspec.TypeFloat || f == math.Trunc(f)) {
			fix = "write the number " + strings.TrimSpace(str) + ", without quotes"
			if hidden {
				fix = "write it as a number, without quotes"
			}
		}
	} else if _, isNum := number(value); isNum && v.Type == mspec.TypeString {
		fix = "write the string " + examples.ShowValue(fmt.Sprint(value))
		if hidden {
			fix = "write it as a string"
		}
	}
	if hidden {
		return fmt.Sprintf("%s %s as a %s, but %s is a %s in the spec: %s (or change the variable's type)", verb, v.Name, examples.JSONKind(value), v.Name, v.Type, fix)
	}
	return fmt.Sprintf("%s %s as the %s %s, but %s is a %s in the spec: %s (or change the variable's type)", verb, v.Name, examples.JSONKind(value), examples.ShowValue(value), v.Name, v.Type, fix)
}

// valueFits reports whether a decoded JSON value can be a variable of type t.
func valueFits(t mspec.Type, value any) bool {
	switch t {
	case mspec.TypeInt:
		f, ok := number(value)
		return ok && f == math.Trunc(f)
	case mspec.TypeFloat:
		_, ok := number(value)
		return ok
	case mspec.TypeBool:
		_, ok := value.(bool)
		return ok
	case mspec.TypeString:
		_, ok := value.(string)
		return ok
	case mspec.TypeList:
		_, ok := value.([]any)
		return ok
	case mspec.TypeMap:
		_, ok := value.(map[string]any)
		return ok
	}
	return true
}

// writtenVars returns the variables a spec's states can write: set entries
// (of states and transitions) and the variables actions' parameters name
// (output and map keys, result, status, ok, report, ...).
func writtenVars(spec *mspec.Spec) map[string]bool {
	out := map[string]bool{}
	for _, st := range spec.States {
		for _, a := range st.Set {
			out[a.Var] = true
		}
		for _, t := range st.Next {
			for _, a := range t.Set {
				out[a.Var] = true
			}
		}
		for _, p := range st.With {
			switch v := p.Value.(type) {
			case map[string]any:
				if p.Name == "output" || p.Name == "map" {
					for k := range v {
						out[k] = true
					}
				}
			case string:
				switch p.Name {
				case "output", "result", "status", "ok", "report", "errors", "into", "failed", "ran":
					out[v] = true
				}
			}
		}
	}
	return out
}

// namesKey reports whether a script's text names key as a word: in quotes
// ("value", 'value') or as an identifier (def main(value): ..., dict(value=1)).
func namesKey(text, key string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], key)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(key)
		if (start == 0 || !isWordByte(text[start-1])) && (end == len(text) || !isWordByte(text[end])) {
			return true
		}
		i = start + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
