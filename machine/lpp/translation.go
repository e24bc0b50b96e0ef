package lpp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	"github.com/lppctl/lppctl/machine/lpp/yamltext"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Translation is a blueprint translated into an lppctl spec: the spec's
// YAML text and, for each of its lines, the place in the blueprint it comes
// from, so that what validation finds in the spec is reported in the JSON
// file (Remap).
type Translation struct {
	Blueprint *Blueprint
	// YAML is the spec's text as Spec decodes it: each free text of
	// 4 KiB or more (a description, a note, a doc, a string default)
	// stands as a placeholder there, line for line where Text writes it.
	YAML []byte
	// Warnings are what the translation found lppctl cannot do as lpp
	// does (positioned in the blueprint).
	Warnings mspec.Diagnostics
	origins  []mspec.Pos // origins[i]: where line i+1 of YAML comes from
	long     *yamltext.Texts
}

// Translate translates a blueprint into an lppctl spec (docs/lpp.md
// describes the mapping). m places the compute units and sets the driver
// rule (nil: DefaultMapping); a unit the blueprint uses that m does not map
// is a *mapfile.MissingUnitsError naming every such unit.
func Translate(bp *Blueprint, m *mapfile.Mapping) (*Translation, error) {
	if m == nil {
		m = mapfile.Default()
	}
	if err := CheckUnits(bp, m); err != nil && !m.Unmapped {
		return nil, err
	}
	tr := newTranslator(bp, m)
	tr.build()
	tr.resolveWhole()
	text, origins := tr.yaml()
	return &Translation{Blueprint: bp, YAML: text, origins: origins, Warnings: tr.warnings, long: tr.long}, nil
}

// Text returns the spec's whole text, as `lppctl import lpp` writes it.
func (t *Translation) Text() []byte { return t.long.Expand(t.YAML) }

// SpecFile is the name the translated spec goes by: BLUEPRINT.json.spec.yaml,
// beside the blueprint (so that files are looked for there). Errors of a
// run point into it: `lppctl import lpp BLUEPRINT.json -o
// BLUEPRINT.json.spec.yaml` writes it.
func (t *Translation) SpecFile() string { return t.Blueprint.File + ".spec.yaml" }

// Spec decodes the translated spec, named SpecFile. Its Source is the YAML
// (validation reads positions in it): Remap the diagnostics of Parse and
// Validate into the blueprint.
func (t *Translation) Spec() (*mspec.Spec, mspec.Diagnostics) {
	spec, diags := mspec.Parse(t.SpecFile(), t.YAML)
	t.long.Fill(spec)
	return spec, diags
}

// Origin returns the place in the blueprint that line (1-based) of the
// translated spec comes from.
func (t *Translation) Origin(line int) (mspec.Pos, bool) {
	if line < 1 || line > len(t.origins) {
		return mspec.Pos{}, false
	}
	return t.origins[line-1], true
}

// Remap moves diagnostics about the translated spec (those in SpecFile)
// into the blueprint's file, at the part of the blueprint the
// line came from: a state, a transition, an action, a gate, a property.
// The hint names the translated spec's line, which `lppctl import lpp`
// shows. Other diagnostics are kept as they are.
func (t *Translation) Remap(diags mspec.Diagnostics) mspec.Diagnostics {
	out := make(mspec.Diagnostics, len(diags))
	var lines [][]byte // the spec's lines, split once when a diagnostic needs one
	for i, d := range diags {
		out[i] = d
		if d.File != t.SpecFile() {
			continue
		}
		out[i].File = t.Blueprint.File
		p, ok := t.Origin(d.Pos.Line)
		if !ok {
			out[i].Pos, out[i].Span = mspec.Pos{}, 0
			continue
		}
		where := fmt.Sprintf("in the spec it translates into (lppctl import lpp), line %d: %s", d.Pos.Line, strings.TrimSpace(t.yamlLine(&lines, d.Pos.Line)))
		out[i].Pos, out[i].Span = p, 0
		out[i].Hint = strings.TrimPrefix(d.Hint+"; "+where, "; ")
		lppAccepts(&out[i])
		out[i].Msg = t.spell(out[i].Msg)
	}
	return out
}

// lppAccepts makes a warning of an error about a routing lpp's loader
// accepts (legalInLPP).
func lppAccepts(d *mspec.Diagnostic) {
	if d.Severity == mspec.SevError && legalInLPP(d.Msg) {
		d.Severity = mspec.SevWarning
		d.Hint = strings.TrimPrefix(d.Hint+"; lpp accepts such a blueprint, so lppctl warns", "; ")
	}
}

// IsImported reports whether a spec's text is one `lppctl import lpp`
// wrote: a comment line `# lpp-blueprint: {...}` that decodes, among the
// comments (and blank lines) the text starts with.
func IsImported(src []byte) bool {
	for line := range bytes.Lines(src) {
		l := bytes.TrimSpace(line)
		if len(l) > 0 && l[0] != '#' {
			return false
		}
		if rest, ok := bytes.CutPrefix(l, []byte(strings.TrimSpace(metaPrefix))); ok {
			var md meta
			return json.Unmarshal(bytes.TrimSpace(rest), &md) == nil
		}
	}
	return false
}

// AsImported validates a spec `lppctl import lpp` wrote (IsImported) as
// the blueprint's translation is validated: its diagnostics, with an error
// about a routing lpp's loader accepts (a transition an earlier unguarded
// one shadows, a state no path reaches, a dead end, ...) made a warning,
// so that the spec exports back to its blueprint. diags is not changed.
func AsImported(diags mspec.Diagnostics) mspec.Diagnostics {
	out := slices.Clone(diags)
	for i := range out {
		lppAccepts(&out[i])
	}
	return out
}

// legalInLPP reports whether a finding about the translated spec is of a
// routing lpp's loader accepts (a warning for a blueprint, an error for a
// spec): a transition an earlier unguarded one shadows, a state no path
// reaches, a blueprint with no terminal state, a state no event leaves, a
// state from which no terminal state can be reached (its ways out lead only
// to such a dead end, or round a cycle: lpp's loader checks none of it).
func legalInLPP(msg string) bool {
	for _, s := range []string{"can never fire: the unguarded transition", "is unreachable from the initial state",
		"the spec has no final state", "has no way out", "can never fire: it has no transition", "no final state can be reached from state",
		"is final: a run would end there"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// spell writes the blueprint's own spelling of the names the translation
// mapped (a state "to-state-name" is to_state_name in the spec).
func (t *Translation) spell(msg string) string {
	for n, o := range t.Blueprint.Orig {
		msg = strings.ReplaceAll(msg, `"`+n+`"`, strconv.Quote(o))
	}
	return msg
}

// identWord is an identifier in a check's message.
var identWord = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// spellWords writes the blueprint's spelling of the internal names a
// check's message gives unquoted (a trap's cycle `a → b → a`).
func (t *Translation) spellWords(msg string) string {
	if len(t.Blueprint.Orig) == 0 {
		return msg
	}
	return identWord.ReplaceAllStringFunc(msg, t.Blueprint.Spelling)
}

// spellVia writes the event a check's "on EVENT[i]" or "event EVENT ..."
// names as the blueprint spells it.
func (t *Translation) spellVia(via string) string {
	if rest, ok := strings.CutPrefix(via, "on "); ok {
		if i := strings.LastIndexByte(rest, '['); i > 0 {
			return "on " + t.Blueprint.Spelling(rest[:i]) + rest[i:]
		}
	}
	if rest, ok := strings.CutPrefix(via, "event "); ok {
		ev, label, _ := strings.Cut(rest, " ")
		if label != "" {
			label = " " + label
		}
		return "event " + t.Blueprint.Spelling(ev) + label
	}
	return via
}

// RemapReport moves a model check of the translated spec into the
// blueprint: the report's file becomes the blueprint's, the names of
// states and events the import mapped are the blueprint's (in messages,
// counterexamples and transitions no path took), and every position
// (of a property's finding, of each counterexample step, of a transition no
// path took) the place in the JSON its spec line comes from. When a
// position has no such place, the report is returned as it is, in
// SpecFile. r is not changed.
func (t *Translation) RemapReport(r *check.CheckReport) *check.CheckReport {
	if r == nil || r.File != t.SpecFile() {
		return r
	}
	out := *r
	ok := true
	move := func(p mspec.Pos) mspec.Pos {
		if !p.IsValid() {
			return p
		}
		o, found := t.Origin(p.Line)
		ok = ok && found
		return o
	}
	bp := t.Blueprint
	out.Properties = slices.Clone(r.Properties)
	for i := range out.Properties {
		p := &out.Properties[i]
		p.Pos = move(p.Pos)
		p.Message = t.spellWords(t.spell(p.Message))
		if p.Trace != nil {
			tr := *p.Trace
			tr.Steps = slices.Clone(tr.Steps)
			for j := range tr.Steps {
				st := &tr.Steps[j]
				st.Pos = move(st.Pos)
				st.From, st.To, st.Via = bp.Spelling(st.From), bp.Spelling(st.To), t.spellVia(st.Via)
			}
			tr.Loop = slices.Clone(tr.Loop)
			for j := range tr.Loop {
				tr.Loop[j] = bp.Spelling(tr.Loop[j])
			}
			p.Trace = &tr
		}
	}
	out.Dead = slices.Clone(r.Dead)
	for i := range out.Dead {
		d := &out.Dead[i]
		d.Pos = move(d.Pos)
		d.State, d.To, d.Via = bp.Spelling(d.State), bp.Spelling(d.To), t.spellVia(d.Via)
	}
	if !ok {
		return r
	}
	out.File = t.Blueprint.File
	return &out
}

// yamlLine returns line n (1-based) of the spec's text, cut to 120 bytes;
// *lines holds the lines of YAML, split on the first call.
func (t *Translation) yamlLine(lines *[][]byte, n int) string {
	if *lines == nil {
		*lines = bytes.Split(t.YAML, []byte("\n"))
	}
	if n < 1 || n > len(*lines) {
		return ""
	}
	l := (*lines)[n-1]
	if len(l) > 120 {
		l = l[:120] // a placeholder cut here is written as it is
	}
	l = t.long.ExpandPrefix(l, 120)
	if len(l) > 120 {
		return string(l[:117]) + "..."
	}
	return string(l)
}
