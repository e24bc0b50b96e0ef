package actions

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/lpp"
	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// specSource is a spec file as spec.validate, spec.check and spec.sandbox
// read it: an lppctl spec, or an L++ blueprint (a JSON object with a
// $schema, docs/lpp.md) translated in memory as lppctl validate and check
// read one, its diagnostics and its check report moved into the JSON.
type specSource struct {
	path  string
	src   []byte
	spec  *mspec.Spec       // nil when the file does not decode
	diags mspec.Diagnostics // Parse's and Validate's, positioned in src
	tr    *lpp.Translation  // a blueprint's translation (nil for a spec)
	// mappingErr is a blueprint's compute mapping that cannot be read or
	// decoded, its report (its diagnostics are in the mapping, not in src).
	mappingErr string
}

// decodeSource decodes src, found at path (relative to root), and validates
// it against reg, as machine.Check does for a spec. An L++ blueprint (any
// JSON object with a $schema: lpp.Parse reads a blueprint and refuses other
// documents naming what they are) is translated with its compute mapping
// (BLUEPRINT.lppctl.yaml beside it, read inside root; none: the default
// driver and no units), and its diagnostics point into the JSON.
func decodeSource(reg *machine.Registry, root, path string, src []byte, opts ...validate.ValidateOption) *specSource {
	s := &specSource{path: path, src: src}
	if !lpp.ReadAsBlueprint(path, src) {
		s.spec, s.diags = validate.Check(path, src, reg, opts...)
		return s
	}
	bp, diags := lpp.Parse(path, src)
	if diags.HasErrors() {
		s.diags = diags
		return s
	}
	s.diags = bp.Warnings
	m, err := loadMapping(root, mapfile.Path(path))
	if err != nil {
		s.mappingErr = err.Error()
		return s
	}
	tr, err := lpp.Translate(bp, m)
	var mu *mapfile.MissingUnitsError
	if errors.As(err, &mu) {
		s.diags = append(s.diags, mspec.Diagnostic{Severity: mspec.SevError, File: path, Pos: mu.Pos, Msg: mu.Error()})
		return s
	}
	if err != nil {
		s.mappingErr = fmt.Sprintf("%s: cannot translate the blueprint: %v", path, err)
		return s
	}
	s.tr = tr
	spec, sd := tr.Spec()
	s.spec = spec
	s.diags = append(s.diags, tr.Remap(sd)...)
	if spec != nil && !sd.HasErrors() {
		s.diags = append(s.diags, tr.Remap(validate.Validate(spec, reg, opts...))...)
	}
	s.diags.Sort()
	return s
}

// remap moves diagnostics about a blueprint's translated spec into the
// blueprint (a spec's are returned as they are).
func (s *specSource) remap(diags mspec.Diagnostics) mspec.Diagnostics {
	if s.tr == nil {
		return diags
	}
	return s.tr.Remap(diags)
}

// remapReport moves a model check of a blueprint's translated spec into the
// blueprint (a spec's is returned as it is).
func (s *specSource) remapReport(r *check.CheckReport) *check.CheckReport {
	if s.tr == nil {
		return r
	}
	return s.tr.RemapReport(r)
}

// loadMapping reads the compute mapping at rel inside root (through an
// os.Root: a link cannot lead it out; a FIFO or a huge file is refused); a missing one is mapfile.Default.
// An invalid one is an error whose text is its positioned diagnostics.
func loadMapping(root, rel string) (*mapfile.Mapping, error) {
	// Read as a file a spec names: inside the root, a regular file, capped.
	data, err := mspec.ReadNamedFile(filepath.Join(root, filepath.FromSlash(rel)), "", root)
	if errors.Is(err, fs.ErrNotExist) {
		m := mapfile.Default()
		m.File = rel // a missing-unit error names it: where to add them
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the compute mapping %s: %w", rel, err)
	}
	m, diags := mapfile.Parse(rel, data)
	if diags.HasErrors() {
		return nil, fmt.Errorf("the compute mapping %s is invalid:\n%s", rel, diags.Errors().PrettyAll(data))
	}
	return m, nil
}
