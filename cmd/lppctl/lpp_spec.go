package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/lpp"
	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// specFile is what validate, run and resume read where a spec is
// expected: a YAML spec, or an L++ blueprint (a JSON object with a
// $schema) translated in memory, as `lppctl import lpp` would write it.
type specFile struct {
	Spec  *mspec.Spec
	Diags mspec.Diagnostics // decoding problems, positioned in Src
	Src   []byte            // the file's bytes: what the diagnostics point into

	blueprint bool             // the file is an L++ document
	imported  bool             // a spec `lppctl import lpp` wrote (lpp.IsImported): validated as its blueprint's translation
	tr        *lpp.Translation // a blueprint's translation (nil for a spec, or when it failed)
	Mapping   string           // a blueprint's compute mapping file (it may not exist)
}

// isBlueprint reports whether the file was a blueprint.
func (f *specFile) isBlueprint() bool { return f.blueprint }

// readSpecFile reads the spec or blueprint at path. A blueprint's compute
// mapping is looked for beside mappingFor (path when ""): resume passes the
// blueprint the run started from while it reads the run's copy. A file
// that cannot be read is an error (fs.ErrNotExist for a missing one); every
// problem of its content is a diagnostic.
//
// The file is read as validate reads it: a regular file of at most
// LPPCTL_MAX_BYTES (16 MiB by default).
func readSpecFile(path, mappingFor string) (*specFile, error) {
	return readSpecFileTo(path, mappingFor, true)
}

// readSpecFileTo is readSpecFile; toRun false lets a blueprint's compute
// units lack a mapping (see parseSpecFileTo).
func readSpecFileTo(path, mappingFor string, toRun bool) (*specFile, error) {
	limit, err := fsx.MaxBytes("")
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	src, err := readCapped(path, "spec", limit)
	if err != nil {
		return nil, err
	}
	return parseSpecFileTo(path, src, mappingFor, toRun)
}

// parseSpecFile is readSpecFile on the file's content. Only a compute
// mapping that cannot be read or decoded is an error.
func parseSpecFile(path string, src []byte, mappingFor string) (*specFile, error) {
	return parseSpecFileTo(path, src, mappingFor, true)
}

// parseSpecFileTo is parseSpecFile; toRun false (validate, check) lets a
// blueprint's compute units lack a mapping (a warning: the mapping is
// needed only to run), each such unit a no-op of the translation.
func parseSpecFileTo(path string, src []byte, mappingFor string, toRun bool) (*specFile, error) {
	if !lpp.ReadAsBlueprint(path, src) {
		spec, diags := mspec.Parse(path, src)
		return &specFile{Spec: spec, Diags: diags, Src: src, imported: lpp.IsImported(src)}, nil
	}
	f := &specFile{Src: src, blueprint: true, Mapping: mapfile.Path(cmp.Or(mappingFor, path))}
	bp, diags := lpp.Parse(path, src)
	if diags.HasErrors() {
		f.Diags = diags
		return f, nil
	}
	f.Diags = bp.Warnings
	m, err := mapfile.Load(f.Mapping)
	if err != nil {
		var de *mspec.DiagnosticsError
		if errors.As(err, &de) {
			return nil, withCode(exitInvalidSpec, fmt.Errorf("the compute mapping %s is invalid:\n%s", f.Mapping, de.Diags.Errors().PrettyAll(de.Source)))
		}
		return nil, withCode(exitInvalidSpec, err)
	}
	var mu *mapfile.MissingUnitsError
	if !toRun {
		if err := lpp.CheckUnits(bp, m); errors.As(err, &mu) {
			f.Diags = append(f.Diags, mspec.Diagnostic{Severity: mspec.SevWarning, File: path, Pos: mu.Pos,
				Msg: mu.Error(), Hint: "needed only to run: validate and check read each such unit as a no-op"})
		}
		m.Unmapped = true
	}
	tr, err := lpp.Translate(bp, m)
	if errors.As(err, &mu) {
		// Before anything runs, naming every missing unit, where the first is used.
		f.Diags = append(f.Diags, mspec.Diagnostic{Severity: mspec.SevError, File: path, Pos: mu.Pos, Msg: mu.Error()})
		return f, nil
	}
	if err != nil {
		return nil, withCode(exitInvalidSpec, fmt.Errorf("cannot translate %s: %w", path, err))
	}
	f.tr = tr
	f.Diags = append(f.Diags, tr.Warnings...)
	spec, sd := tr.Spec()
	f.Spec = spec
	f.Diags = append(f.Diags, tr.Remap(sd)...)
	return f, nil
}

// remap moves diagnostics about a blueprint's translated spec into the
// blueprint; those of a spec `lppctl import lpp` wrote are read as its
// blueprint's would be (lpp.AsImported: a routing lpp accepts is a
// warning); a spec's are returned as they are.
func (f *specFile) remap(diags mspec.Diagnostics) mspec.Diagnostics {
	if f.imported {
		return lpp.AsImported(diags)
	}
	if f.tr == nil {
		return diags
	}
	return f.tr.Remap(diags)
}

// finish is called once the spec is validated: a blueprint's spec then
// holds the blueprint's bytes as its Source, so that a run keeps (and
// hashes, for resume) the blueprint it was started from.
func (f *specFile) finish() {
	if f.tr != nil && f.Spec != nil {
		f.Spec.Source = f.Src
	}
}

// mappingHash adds to files (Meta.Files: resume refuses when one changed)
// the compute mapping of a blueprint being run from path, when it exists:
// the run's translation depends on it as much as on the blueprint.
func mappingHash(spec *mspec.Spec, path string, files map[string]string) map[string]string {
	if !lpp.IsBlueprint(spec.Source) {
		return files
	}
	abs, err := filepath.Abs(mapfile.Path(path))
	if err != nil {
		return files
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return files
	}
	if files == nil {
		files = map[string]string{}
	}
	files[abs] = runstore.SpecHash(b)
	return files
}

// checkSpecFile is validate's check of one file: machine.Check,
// actions.CheckSpec and the gateway policy a run would need
// (policyDiagnostic) for a spec; for an L++ blueprint, the same on its
// translation, every diagnostic moved into the JSON file.
func checkSpecFile(path string, src []byte, reg *machine.Registry, root string, opts ...validate.ValidateOption) (mspec.Diagnostics, error) {
	_, diags, err := validateSpecFile(path, src, reg, actions.CheckOptions{Root: root}, opts...)
	return diags, err
}

// validateSpecFile is checkSpecFile, also returning the file read (its
// Spec, nil when it does not decode; a blueprint's translation). With
// ck.NoFiles (lppctl check), what only a run needs is left out: the files
// (validate.WithoutFiles) and the policy.
func validateSpecFile(path string, src []byte, reg *machine.Registry, ck actions.CheckOptions, opts ...validate.ValidateOption) (*specFile, mspec.Diagnostics, error) {
	if ck.NoFiles {
		opts = append(opts, validate.WithoutFiles())
	}
	more := func(spec *mspec.Spec, src []byte) mspec.Diagnostics {
		diags := actions.CheckSpec(spec, reg, ck)
		// The policy a run would load: a blueprint's run (Source: its
		// bytes, as finish leaves it) has a default one outside a project.
		ps := *spec
		ps.Source = src
		if d := policyDiagnostic(&ps, reg, ck.Root, ""); d != nil && !ck.NoFiles {
			diags = append(diags, *d)
		}
		return diags
	}
	if !lpp.ReadAsBlueprint(path, src) {
		f := &specFile{Src: src, imported: lpp.IsImported(src)}
		spec, diags := validate.Check(path, src, reg, opts...)
		if spec != nil {
			diags = append(diags, more(spec, src)...)
			diags.Sort()
		}
		f.Spec = spec
		return f, f.remap(diags), nil
	}
	f, err := parseSpecFileTo(path, src, "", false)
	if err != nil {
		return nil, nil, err
	}
	diags := f.Diags
	if f.Spec != nil && !diags.HasErrors() {
		diags = append(diags, f.remap(validate.Validate(f.Spec, reg, opts...))...)
		diags = append(diags, f.remap(more(f.Spec, f.Src))...)
	}
	diags.Sort()
	return f, diags, nil
}

// report is the diagnostics of the spec file read (for path), validated
// against reg, sorted: run's and resume's report. A spec whose text has
// errors is validated as far as it decodes, as lppctl validate does, so that
// every error is reported at once.
func (f *specFile) report(path string, reg *machine.Registry, ck actions.CheckOptions, opts ...validate.ValidateOption) mspec.Diagnostics {
	diags := f.Diags
	switch {
	case f.Spec != nil && !diags.HasErrors():
		diags = append(diags, f.remap(validate.Validate(f.Spec, reg, opts...))...)
		diags = append(diags, f.remap(actions.CheckSpec(f.Spec, reg, ck))...)
	case f.Spec != nil && !f.isBlueprint():
		var spec *mspec.Spec
		if spec, diags = validate.Check(path, f.Src, reg, opts...); spec != nil {
			diags = append(diags, actions.CheckSpec(spec, reg, ck)...)
		}
	}
	diags.Sort()
	return diags
}

// parseForDiff decodes a spec for resume's list of what changed: a
// blueprint is translated (its compute mapping beside mappingFor), so that
// the states that differ are named. nil when it does not decode.
func parseForDiff(path string, src []byte, mappingFor string) *mspec.Spec {
	f, err := parseSpecFile(path, src, mappingFor)
	if err != nil {
		return nil
	}
	return f.Spec
}

// blueprintName is the name the translation of a blueprint uses for the
// event (or property: run --var) the blueprint spells name (`--event
// TO-X_DONE` is TO_X_DONE, `--var len=[]` sets lpp_len): name itself for a
// spec, or a name the import kept.
func blueprintName(spec *mspec.Spec, name string) string {
	if spec == nil || name == "" || !lpp.IsBlueprint(spec.Source) {
		return name
	}
	bp, _ := lpp.Parse(spec.File, spec.Source)
	if bp == nil {
		return name
	}
	return bp.InternalName(name)
}

// driverEventRefused is the refusal of a driver's event (DONE, AUTO) sent
// to a blueprint's run that waits because the driver fired it on entering
// the state and none of its transitions passed ("" when that is not the
// case: the machine's own refusal says what else is wrong). Its gates read
// no payload (else the waiting state takes the event again), so it would
// find no transition again: lpp drops it (GATES_FAILED).
func driverEventRefused(spec *mspec.Spec, hint, state, event string, accepts []string) string {
	if spec == nil || !lpp.IsBlueprint(spec.Source) {
		return ""
	}
	bp, _ := lpp.Parse(spec.File, spec.Source)
	if bp == nil {
		return ""
	}
	return driverEventMsg(spec, bp.Spelling, hint, state, event, accepts)
}

// driverEventTemporal is driverEventRefused for a run on Temporal, whose
// workflow holds the blueprint's translation (src) rather than the
// blueprint: the translation's # lpp-blueprint: line gives the blueprint's
// spelling, and its own states the events the run waits for.
func driverEventTemporal(src []byte, hint, state, event string) string {
	if !lpp.IsImported(src) {
		return ""
	}
	spec, _ := mspec.Parse("spec.yaml", src)
	if spec == nil || spec.State(state) == nil {
		return ""
	}
	var accepts []string
	for _, on := range spec.State(state).On {
		accepts = mspec.AppendUnique(accepts, on.Event)
	}
	for _, ev := range spec.Events {
		if slices.Contains(ev.From, "*") || slices.Contains(ev.From, state) {
			accepts = mspec.AppendUnique(accepts, ev.Name)
		}
	}
	spelling := func(name string) string { return lpp.ImportedSpelling(src, name) }
	return driverEventMsg(spec, spelling, hint, state, event, accepts)
}

// driverEventMsg is the refusal itself, names given in the blueprint's
// spelling.
func driverEventMsg(spec *mspec.Spec, spelling func(string) string, hint, state, event string, accepts []string) string {
	if slices.Contains(accepts, event) {
		return "" // the state takes the event again (its gates read the payload, or START): the guard's refusal says why not
	}
	s, ok := lpp.DriverEventFailed(spec, state, event)
	if !ok {
		return ""
	}
	names := make([]string, len(accepts))
	for i, e := range accepts {
		names[i] = spelling(e)
	}
	ev := spelling(event)
	msg := fmt.Sprintf("cannot fire event %q in state %q: the driver fired %s on entering %s and none of its %s transitions passed; their gates read no payload and the context has not changed since, so %s would find none again (lpp drops it: GATES_FAILED)",
		ev, spelling(s), ev, spelling(s), ev, ev)
	if len(names) > 0 {
		msg += fmt.Sprintf("; the run waits for %s: %s --event NAME", strings.Join(names, ", "), hint)
	}
	return msg
}
