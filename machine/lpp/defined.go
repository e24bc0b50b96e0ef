package lpp

import (
	"fmt"
	"strings"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// A name nothing has written yet. lpp's context holds the declared
// properties (None) and whatever has been written since: a name the
// blueprint does not declare is absent until a set, a compute output or
// the caller writes it, and a gate that reaches it while it is absent
// fails (false). lppctl declares such a name as an implicit nullable
// property; when a gate a transition uses reads it, a hidden bool flag
// (Property.Flag) says whether it exists yet: every write sets it, and the
// gate's translation is false where lpp's evaluation reaches the name
// while it does not (gate.Env.Defined). docs/lpp.md, "A name nothing has
// written yet".

// flagPre starts the name of an implicit property's defined flag
// (Property.Flag).
const flagPre = "lpp_defined_"

// nameFlags names the defined flag of each implicit property a gate reads:
// lpp_defined_NAME, made unique among the properties and other flags.
func nameFlags(bp *Blueprint) {
	taken := map[string]bool{}
	for _, p := range bp.Context {
		taken[p.Name] = true
	}
	for _, p := range bp.Context {
		if p.Flag == "" {
			continue
		}
		f := flagPre + p.Name
		for i := 2; taken[f]; i++ {
			f = fmt.Sprintf("%s%s_%d", flagPre, p.Name, i)
		}
		taken[f] = true
		p.Flag = f
	}
}

// DefinedFlag is the hidden bool variable that says whether the implicit
// property named name (its internal name) exists in lpp's context yet,
// or "" when the property has none (declared, or no gate reads it).
func (bp *Blueprint) DefinedFlag(name string) string {
	if p := bp.Property(name); p != nil {
		return p.Flag
	}
	return ""
}

// DefinedFlags maps each implicit property of the blueprint spec comes
// from (run or checked as a blueprint, or a spec `lppctl import lpp`
// wrote) to its defined flag, for the caller's context: `--var NAME=...`
// writes NAME, so the property exists. nil for another spec.
func DefinedFlags(spec *mspec.Spec) map[string]string {
	if spec == nil {
		return nil
	}
	if IsBlueprint(spec.Source) {
		bp, _ := Parse(spec.File, spec.Source)
		if bp == nil {
			return nil
		}
		return bp.definedFlags()
	}
	if md := readMeta(spec.Source); md != nil {
		return md.Defined
	}
	return nil
}

// definedFlags maps each property that has a defined flag to it.
func (bp *Blueprint) definedFlags() map[string]string {
	var out map[string]string
	for _, p := range bp.Context {
		if p.Flag != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[p.Name] = p.Flag
		}
	}
	return out
}

// dropFlags removes from a guard the conditions the translation puts in
// front of a gate that reads a name nothing may have written yet
// (`(x != nil || lpp_defined_x) && `): a guard edited since the import
// is written back without the translation's flag. A condition the
// translation made conditional on a left side of and/or stays.
func (w *writer) dropFlags(guard string) string {
	if w.md == nil {
		return guard
	}
	for name, f := range w.md.Defined {
		guard = strings.ReplaceAll(guard, "("+name+" != nil || "+f+") && ", "")
	}
	return guard
}
