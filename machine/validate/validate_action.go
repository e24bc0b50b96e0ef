package validate

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// action checks a state's `do:` and `with:` against the registry.
func (v *validator) action(st *mspec.State) {
	a := v.reg.Lookup(st.Do)
	if a == nil {
		hint := mspec.DidYouMeanHint(st.Do, v.reg.Names())
		if hint == "" {
			hint = "registered actions: " + mspec.ListNames(v.reg.Names(), 12)
		}
		v.errorf(st.DoPos, len(st.Do), hint, "unknown action %q", st.Do)
		return
	}
	sig := fmt.Sprintf("%s takes no parameters", a.Name)
	if len(a.Params) > 0 {
		sig = fmt.Sprintf("%s takes %s", a.Name, a.Signature())
	}
	given := map[string]bool{}
	for _, p := range st.With {
		given[p.Name] = true
		ps := a.Param(p.Name)
		if ps == nil {
			if key, fixed, ok := mspec.ColonLeftOut(p.Name, p.Value, a.ParamNames()); ok {
				v.errorf(p.Pos, len(key)+1, "write `"+fixed+"`", "action %q has no parameter %q: a colon is missing after %q", a.Name, p.Name, key)
				continue
			}
			hint := sig
			if h := mspec.DidYouMeanHint(p.Name, a.ParamNames()); h != "" {
				hint = h + " " + sig
			}
			v.errorf(p.Pos, len(p.Name), hint, "action %q has no parameter %q", a.Name, p.Name)
			continue
		}
		v.param(a, ps, p)
		if ps.PayloadOf != "" {
			v.payloadParam(st, a, ps, p)
		}
	}
	v.missingPayload(st, a, given)
	for _, ps := range a.Params {
		switch {
		case ps.Required && !given[ps.Name] && !v.lostKey(st.Name, "with"):
			v.errorf(st.DoPos, len(st.Do), fmt.Sprintf("add it under with:; %s", sig), "action %q needs parameter %q", a.Name, ps.Name)
		case ps.Type == mspec.TypeFile && !given[ps.Name] && ps.Default != nil:
			// The default file must be there too; the run reads it.
			name, _ := ps.Default.(string)
			v.file(a, &ps, &mspec.Param{Name: ps.Name, Value: name, Pos: st.DoPos, VPos: st.DoPos}, name)
		}
	}
	if a.WritesFor == nil {
		if v.writesSeen[a.Name] {
			return
		}
		v.writesSeen[a.Name] = true
	}
	for _, w := range a.WritesOf(st) {
		cv := v.spec.Var(w.Name)
		switch {
		case cv == nil:
			hint := fmt.Sprintf("declare it under context: `%s: %s`", w.Name, w.Type)
			if w.Type == mspec.TypeAny { // no context variable can be declared `any`
				hint = fmt.Sprintf("declare it under context with the type of its values: `%s: string` (or int, float, bool, list, map)", w.Name)
			}
			if dym := v.suggest(w.Name, v.varNames()); dym != "" {
				hint = dym + " or " + hint
			}
			at, span := v.writePos(st, w.Name)
			v.errorf(at, span, hint,
				"action %q writes context variable %q, which the spec does not declare", a.Name, w.Name)
		case w.Type != mspec.TypeAny && cv.Type != mspec.TypeAny && cv.Type != w.Type:
			at, span := v.writePos(st, w.Name)
			v.errorf(at, span, fmt.Sprintf("declare it as `%s: %s`", w.Name, w.Type),
				"action %q writes %q as %s, but the spec declares it as %s", a.Name, w.Name, w.Type, cv.Type)
		}
	}
}

// deadOnErrors warns of an on_error route no run takes: the state's action
// declares that it never fails (noop, log, wait, emit) and none of its
// parameters is an expression, whose evaluation could fail it.
func (v *validator) deadOnErrors() {
	for _, st := range v.spec.States {
		if a := v.reg.Lookup(st.Do); a != nil && st.OnError != nil && a.NeverFails && !exprParams(st, a) {
			v.add(mspec.SevWarning, st.OnError.Pos, 1,
				"remove it; a route is taken only when the state's action fails (tools.call, script.run, llm.generate, fail can)",
				"on_error of state %q is never taken: %s fails only when a parameter expression cannot be evaluated, and it has none here", st.Name, a.Name)
		}
	}
}

// exprParams reports whether a state gives its action a parameter that is
// an expression (evaluated when the action runs, it may fail).
func exprParams(st *mspec.State, a *machine.Action) bool {
	for _, p := range st.With {
		ps := a.Param(p.Name)
		if ps == nil {
			continue
		}
		if ps.Type == mspec.TypeExpr || ps.Type == mspec.TypeExprMap {
			return true
		}
		if src, ok := mspec.ExprSource(p.Value); ok && ps.Format != "" && !ps.Format.Literal(src) {
			return true
		}
	}
	return false
}

func (v *validator) param(a *machine.Action, ps *machine.ParamSpec, p *mspec.Param) {
	if ps.Type == mspec.TypeExprMap {
		if _, ok := p.Value.(map[string]any); !ok {
			v.errorf(p.VPos, valueSpan(v.spec.Source, p.VPos), "write a mapping of names to expressions, e.g. {score: retries + 1}",
				"parameter %q of action %q must be a mapping of names to expressions, not %s", ps.Name, a.Name, mspec.DescribeValue(p.Value))
		} else if ps.PayloadOf == "" {
			v.exprMap(ps, p, nil)
		}
		return
	}
	if src, ok := mspec.ExprSource(p.Value); ok && ps.Format != "" && !ps.Format.Literal(src) {
		v.formatParam(a, ps, p, src)
		return
	}
	if ps.Type == mspec.TypeExpr {
		src, ok := mspec.ExprSource(p.Value)
		if !ok {
			v.errorf(p.VPos, valueSpan(v.spec.Source, p.VPos), "write the expression as text, e.g. retries + 1 or '[1, 2]'",
				"parameter %q of action %q must be an expression, not %s", ps.Name, a.Name, mspec.DescribeValue(p.Value))
			return
		}
		at := mspec.ExprStart(v.spec.Source, p.VPos)
		if _, err := mspec.CompileValue(src, mspec.TypeAny, v.env); err != nil {
			e := mspec.LocateExpr(err, v.spec.Source, at, src)
			v.exprError(e, fmt.Sprintf("parameter %q", ps.Name))
			return
		}
		v.constants(src, at, fmt.Sprintf("parameter %q", ps.Name), true)
		return
	}
	val, err := ps.Type.Coerce(p.Value)
	if err != nil {
		v.errorf(p.VPos, valueSpan(v.spec.Source, p.VPos), fmt.Sprintf("%s takes %s", a.Name, a.Signature()), "parameter %q of action %q: %v", ps.Name, a.Name, err)
		return
	}
	v.textExpr(a, ps, p)
	if ps.Type == mspec.TypeFile {
		v.file(a, ps, p, val.(string))
		return
	}
	if s, ok := val.(string); ok && ps.Event && !mspec.Contains(v.spec.EventNames(), s) {
		names := v.spec.EventNames()
		hint := mspec.DidYouMeanHint(s, names)
		if hint == "" {
			hint = "events are: " + mspec.ListNames(names, 12)
		}
		v.errorf(p.VPos, valueSpan(v.spec.Source, p.VPos), hint, "parameter %q of action %q: event %q is not defined under events: or in a state's on:", ps.Name, a.Name, s)
		return
	}
	if s, ok := val.(string); ok && len(ps.Enum) > 0 && !mspec.Contains(ps.Enum, s) {
		hint := mspec.DidYouMeanHint(s, ps.Enum)
		if hint == "" {
			hint = "use one of " + mspec.QuoteList(ps.Enum)
		}
		v.errorf(p.VPos, valueSpan(v.spec.Source, p.VPos), hint, "parameter %q of action %q: %q is not one of %s", ps.Name, a.Name, s, mspec.QuoteList(ps.Enum))
	}
}

// file checks that a file parameter names a readable file, found where the
// actions look for it at run time (ResolveFile).
func (v *validator) file(a *machine.Action, ps *machine.ParamSpec, p *mspec.Param, name string) {
	if v.opts.noFiles {
		return
	}
	at, span := p.VPos, valueSpan(v.spec.Source, p.VPos)
	specDir, root := v.opts.specDir, v.opts.root
	if strings.TrimSpace(name) == "" {
		v.errorf(at, span, "give the file's path, relative to the spec's folder", "parameter %q of action %q: the file name is empty", ps.Name, a.Name)
		return
	}
	found, tried, err := mspec.LocateFile(name, specDir, root)
	if err != nil {
		v.errorf(at, span, "files a spec names must lie inside the project root; copy the file into the project and name it relative to the spec's folder", "parameter %q of action %q: %v", ps.Name, a.Name, err)
		return
	}
	if found == "" {
		v.errorf(at, span, fileHint(name, tried, specDir, root), "parameter %q of action %q: file %q not found (looked for %s)", ps.Name, a.Name, name, strings.Join(tried, ", "))
		return
	}
	if err := readable(found, specDir, root); err != nil {
		v.errorf(at, span, "the action reads it when the run gets there", "parameter %q of action %q: cannot read file %s: %v", ps.Name, a.Name, found, err)
	}
}

// readable reports why the file at path, found by LocateFile, cannot be
// read as the actions read it (nil when it can).
func readable(path, specDir, root string) error {
	f, err := mspec.OpenNamed(path, specDir, root)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			return pe.Err
		}
		return err
	}
	defer f.Close()
	if _, err := f.Read(make([]byte, 1)); err != nil && err != io.EOF {
		if pe, ok := err.(*os.PathError); ok {
			return pe.Err
		}
		return err
	}
	return nil
}

// fileHint suggests, for a file that was not found, the closest file in the
// folders it was looked for in, else lists the files of the first of them
// that exists.
func fileHint(name string, tried []string, specDir, root string) string {
	var first string
	var firstFiles []string
	for _, cand := range tried {
		dir := filepath.Dir(cand)
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		var files []string
		for _, e := range ents {
			if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				files = append(files, e.Name())
			}
		}
		if best, ok := mspec.DidYouMean(filepath.Base(name), files); ok {
			return fmt.Sprintf("did you mean %q?", filepath.ToSlash(filepath.Join(filepath.Dir(name), best)))
		}
		if first == "" {
			first, firstFiles = dir, files
		}
	}
	if first != "" {
		return fmt.Sprintf("files in %s: %s", first, mspec.ListNames(firstFiles, 12))
	}
	if filepath.IsAbs(name) {
		return fmt.Sprintf("no folder %s", filepath.Dir(name))
	}
	// A misspelt folder: a sibling of the first folder it names.
	for _, base := range []string{specDir, root} {
		ents, err := os.ReadDir(filepath.Join(base, filepath.Dir(filepath.Dir(name))))
		if err != nil {
			continue
		}
		var dirs []string
		for _, e := range ents {
			if e.IsDir() {
				dirs = append(dirs, e.Name())
			}
		}
		if d, ok := mspec.DidYouMean(filepath.Base(filepath.Dir(name)), dirs); ok {
			return fmt.Sprintf("did you mean %q?", filepath.ToSlash(filepath.Join(filepath.Dir(filepath.Dir(name)), d, filepath.Base(name))))
		}
	}
	return fmt.Sprintf("paths are relative to the spec's folder (%s), then the project root (%s); neither has a folder %s", specDir, root, filepath.Dir(name))
}
