package skills

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lppctl/lppctl/internal/textx"
)

// Proposal actions.
const (
	ActionAdd    = "add"
	ActionUpdate = "update"
	ActionRemove = "remove"
)

// MaxProposalNameLen bounds the names a teacher may propose (stricter than MaxNameLen).
const MaxProposalNameLen = 64

// Proposal is one change to the library suggested by the teacher LLM.
// For update, OldSkillName (when set and different) renames that skill to
// SkillName; empty Principle or WhenToApply keep the current text.
type Proposal struct {
	Action       string `json:"action"`
	SkillName    string `json:"skill_name"`
	OldSkillName string `json:"old_skill_name,omitempty"`
	Principle    string `json:"principle,omitempty"`
	WhenToApply  string `json:"when_to_apply,omitempty"`
	Reason       string `json:"reason,omitempty"`

	typeErrs  []error  // fields of the wrong type in the reply (see ParseProposals)
	badFields []string // their names
}

// bad reports whether the reply gave field a value of the wrong type.
func (p Proposal) bad(field string) bool { return slices.Contains(p.badFields, field) }

// target is the existing skill an update or remove acts on.
func (p Proposal) target() string {
	if p.Action == ActionUpdate && p.OldSkillName != "" {
		return p.OldSkillName
	}
	return p.SkillName
}

// TeacherPrompt asks an LLM to turn a run's success and failure cases into
// changes to the skill library, answered as a JSON array of Proposal.
func TeacherPrompt(successCases, failureCases string, existing []Skill) string {
	return TeacherPromptWithStats(successCases, failureCases, existing, "")
}

// TeacherPromptWithStats is TeacherPrompt with the skills' statistics
// (StatsSummary; "" leaves the section out), so that the teacher can
// remove or rewrite a skill that does not help.
func TeacherPromptWithStats(successCases, failureCases string, existing []Skill, stats string) string {
	var b strings.Builder
	b.WriteString(`You maintain a library of skills: short, general principles an agent learned from experience and applies to future tasks.

Study the success and failure cases of the run below and propose changes to the library:
- "add" a skill for a lesson that will help in other tasks and is not covered yet;
- "update" a skill whose principle or when_to_apply should be sharpened (set old_skill_name to rename it);
- "remove" a skill that proved wrong or misleading.
Propose nothing for lessons that are specific to this one task.

Rules for skills:
- skill_name: lowercase words joined by underscores, at most 64 characters, describing the general technique (e.g. verify_output_paths). Never put run ids, step numbers, dates, file names or other one-off details in a name.
- principle: one or two sentences stating what to do and why.
- when_to_apply: the situations in which the principle helps.
- Each skill name appears in at most one proposal. Only update or remove skills listed under "Existing skills".

`)
	b.WriteString("## Success cases\n\n")
	writeOrNone(&b, successCases)
	b.WriteString("## Failure cases\n\n")
	writeOrNone(&b, failureCases)
	b.WriteString("## Existing skills\n\n")
	if len(existing) == 0 {
		b.WriteString("(none)\n\n")
	}
	for _, s := range existing {
		fmt.Fprintf(&b, "- %s: %s (when to apply: %s)\n", s.Name, textx.OneLine(s.Principle), textx.OneLine(s.WhenToApply))
	}
	if len(existing) > 0 {
		b.WriteString("\n")
	}
	if stats = strings.TrimSpace(stats); stats != "" {
		b.WriteString(StatsHeading + stats + "\n\n")
	}
	b.WriteString(`## Answer

Reply with a JSON array only, one object per change, or [] when nothing should change:
[{"action": "add|update|remove", "skill_name": "...", "old_skill_name": "(update only, to rename)", "principle": "...", "when_to_apply": "...", "reason": "why this change"}]
`)
	return b.String()
}

func writeOrNone(b *strings.Builder, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		text = "(none)"
	}
	b.WriteString(text + "\n\n")
}

var fencedBlock = regexp.MustCompile("(?s)```[A-Za-z]*[ \t]*\r?\n(.*?)```")

// ParseProposals extracts the teacher's proposals from its reply: the reply
// itself as a JSON array (or an object with a "proposals" array, or a
// single proposal object), else the fenced code blocks holding one, else the
// JSON arrays of objects anywhere in the text (a non-empty one before an
// empty one: "[]" in prose is not an answer when proposals follow). Trailing
// commas before a closing bracket or brace are forgiven. Fields are trimmed
// and actions lowercased; a field of the wrong type (a number for a string,
// ...) does not spoil the other proposals: ValidateProposals rejects that
// proposal with the reason. "[]" gives no proposals and no error; a reply
// without any array is an error wrapping ErrNoProposals.
//
// A reply may hold several lists: the answer format quoted back (an action
// "add|update|remove", a skill_name "..."), which is dropped, or a draft and
// then the answer. Lists that differ are an error wrapping
// ErrSeveralProposalLists, never the first one taken: a draft the teacher
// then withdrew must not change the library.
func ParseProposals(reply string) ([]Proposal, error) {
	var lastErr error
	// try reads the JSON value at the start of text; used is how many bytes
	// of text it spans (0 when it could not be read).
	try := func(text string) (ps []Proposal, used int, ok bool) {
		lead := len(text) - len(strings.TrimLeftFunc(text, unicode.IsSpace))
		text = strings.TrimSpace(text)
		if !strings.HasPrefix(text, "[") && !strings.HasPrefix(text, "{") {
			return nil, 0, false
		}
		var v json.RawMessage
		dec := json.NewDecoder(strings.NewReader(text))
		if err := dec.Decode(&v); err != nil {
			// Forgive trailing commas, the commonest slip of models.
			text = string(withoutTrailingCommas([]byte(text)))
			dec = json.NewDecoder(strings.NewReader(text))
			if err2 := dec.Decode(&v); err2 != nil {
				lastErr = err
				return nil, 0, false
			}
		}
		used = lead + int(dec.InputOffset())
		var elems []json.RawMessage
		if v[0] == '{' {
			var obj map[string]json.RawMessage
			json.Unmarshal(v, &obj)
			if list, ok := obj["proposals"]; ok {
				if json.Unmarshal(list, &elems) != nil {
					lastErr = errors.New(`"proposals" is not an array`)
					return nil, 0, false
				}
			} else if _, ok := obj["action"]; ok {
				elems = []json.RawMessage{v} // one proposal, not in an array
			} else {
				return nil, 0, false
			}
		} else if err := json.Unmarshal(v, &elems); err != nil {
			lastErr = err
			return nil, 0, false
		}
		ps = make([]Proposal, 0, len(elems))
		for i, e := range elems {
			e = json.RawMessage(strings.TrimSpace(string(e)))
			if len(e) == 0 || e[0] != '{' {
				lastErr = fmt.Errorf("element %d of the array is not an object", i+1)
				return nil, 0, false
			}
			ps = append(ps, decodeProposal(e))
		}
		return normalizeProposals(ps), used, true
	}
	if ps, _, ok := try(reply); ok {
		return ps, nil
	}
	var lists [][]Proposal
	for _, m := range fencedBlock.FindAllStringSubmatch(reply, -1) {
		if ps, _, ok := try(m[1]); ok {
			lists = append(lists, ps)
		}
	}
	if len(lists) == 0 {
		var empty []Proposal
		for i := 0; i < len(reply); i++ {
			if reply[i] != '[' {
				continue
			}
			ps, used, ok := try(reply[i:])
			if !ok {
				continue
			}
			if len(ps) > 0 {
				lists = append(lists, ps)
				i += used - 1 // not the arrays nested in this one
			} else if empty == nil {
				empty = ps // "[]" in prose: go on looking for proposals
			}
		}
		if len(lists) == 0 && empty != nil {
			return empty, nil
		}
	}
	if len(lists) == 0 {
		if lastErr != nil {
			return nil, fmt.Errorf("cannot parse skill proposals: %w (last attempt: %v)", ErrNoProposals, lastErr)
		}
		return nil, fmt.Errorf("cannot parse skill proposals: %w", ErrNoProposals)
	}
	return oneProposalList(lists)
}

// oneProposalList picks the answer among the proposal lists of a reply: the
// quoted answer format is dropped (when something else is left), and the
// same list given twice is one; lists that still differ cannot be told
// apart.
func oneProposalList(lists [][]Proposal) ([]Proposal, error) {
	var kept [][]Proposal
	for _, ps := range lists {
		if !slices.ContainsFunc(ps, isFormatEcho) {
			kept = append(kept, ps)
		}
	}
	if len(kept) == 0 {
		kept = lists[len(lists)-1:] // the echo only: ValidateProposals says why
	}
	distinct := kept[:1]
	for _, ps := range kept[1:] {
		if !sameProposals(ps, distinct[len(distinct)-1]) {
			distinct = append(distinct, ps)
		}
	}
	if len(distinct) > 1 {
		return nil, fmt.Errorf("cannot parse skill proposals: the reply holds %d %w (a draft, then the answer?), so which one is meant cannot be told", len(distinct), ErrSeveralProposalLists)
	}
	return distinct[0], nil
}

// isFormatEcho tells a proposal that quotes the answer format of the
// teacher's prompt ("add|update|remove", "...") from a real one.
func isFormatEcho(p Proposal) bool {
	return strings.Contains(p.Action, "|") || p.SkillName == "..." || p.Principle == "..."
}

func sameProposals(a, b []Proposal) bool {
	return slices.EqualFunc(a, b, func(x, y Proposal) bool {
		return x.Action == y.Action && x.SkillName == y.SkillName && x.OldSkillName == y.OldSkillName &&
			x.Principle == y.Principle && x.WhenToApply == y.WhenToApply && x.Reason == y.Reason
	})
}

// decodeProposal decodes one proposal object leniently: null is an empty
// field, unknown fields are ignored, and a field of another type is noted
// in typeErrs for ValidateProposals to report.
func decodeProposal(raw json.RawMessage) Proposal {
	var p Proposal
	var fields map[string]json.RawMessage
	json.Unmarshal(raw, &fields)
	for _, f := range []struct {
		key string
		dst *string
	}{{"action", &p.Action}, {"skill_name", &p.SkillName}, {"old_skill_name", &p.OldSkillName},
		{"principle", &p.Principle}, {"when_to_apply", &p.WhenToApply}, {"reason", &p.Reason}} {
		v, ok := fields[f.key]
		if !ok || string(v) == "null" {
			continue
		}
		if json.Unmarshal(v, f.dst) != nil {
			p.typeErrs = append(p.typeErrs, fmt.Errorf("%s is %s, not a string: %w", f.key, v, ErrInvalid))
			p.badFields = append(p.badFields, f.key)
		}
	}
	return p
}

// withoutTrailingCommas drops the commas that directly precede a closing
// ] or } (outside strings).
func withoutTrailingCommas(data []byte) []byte {
	out := make([]byte, 0, len(data))
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
		}
		if c == ',' {
			j := i + 1
			for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r') {
				j++
			}
			if j < len(data) && (data[j] == ']' || data[j] == '}') {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

func normalizeProposals(ps []Proposal) []Proposal {
	if ps == nil {
		return []Proposal{}
	}
	for i := range ps {
		p := &ps[i]
		p.Action = strings.ToLower(strings.TrimSpace(p.Action))
		p.SkillName = strings.TrimSpace(p.SkillName)
		p.OldSkillName = strings.TrimSpace(p.OldSkillName)
		p.Principle = strings.TrimSpace(p.Principle)
		p.WhenToApply = strings.TrimSpace(p.WhenToApply)
		p.Reason = strings.TrimSpace(p.Reason)
	}
	return ps
}

// ProposalError lists the problems of one proposal. It unwraps to them, so
// errors.Is finds ErrInvalid or ErrNotFound.
type ProposalError struct {
	Index    int // position in the proposal list, from 0
	Proposal Proposal
	Problems []error
}

func (e *ProposalError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	action := e.Proposal.Action
	if action == "" {
		action = "?"
	}
	return fmt.Sprintf("proposal %d (%s %q): %s", e.Index+1, action, e.Proposal.SkillName, strings.Join(msgs, "; "))
}

func (e *ProposalError) Unwrap() []error { return e.Problems }

// ValidateProposals checks proposals in order against the existing skills,
// as Apply would apply them (a valid proposal's effect is seen by the later
// ones). It returns one entry per proposal: nil when it is valid, else a
// *ProposalError. It rejects missing fields, unknown actions, names tied to
// one instance (see InstanceSpecific), names not in snake_case, a second
// proposal for the same skill, adds of existing skills and updates or
// removals of unknown ones.
func ValidateProposals(ps []Proposal, existing []Skill) []error {
	v := newProposalChecker(existing)
	out := make([]error, len(ps))
	for i, p := range ps {
		p = v.canonical(p)
		if err := v.check(i, p); err != nil {
			out[i] = err
			continue
		}
		v.commit(p)
	}
	return out
}

type proposalChecker struct {
	names      map[string]bool   // skills that exist after the valid proposals so far
	principles map[string]string // their principles, by name
	touched    map[string]int    // skill name → index of the first proposal naming it
}

func newProposalChecker(existing []Skill) *proposalChecker {
	c := &proposalChecker{names: map[string]bool{}, principles: map[string]string{}, touched: map[string]int{}}
	for _, s := range existing {
		c.names[s.Name] = true
		c.principles[s.Name] = s.Principle
	}
	return c
}

// lookalike returns the skill other than except whose name differs from
// name only in "-" and "_" (verify-output-files, verify_output_files): the
// same skill written twice ("" when there is none).
func (c *proposalChecker) lookalike(name, except string) string {
	key := func(n string) string { return strings.ReplaceAll(NormalName(n), "-", "_") }
	for _, k := range slices.Sorted(maps.Keys(c.names)) {
		if k != except && key(k) == key(name) {
			return k
		}
	}
	return ""
}

// samePrinciple returns the skill other than except whose principle is
// principle, compared without regard to case, spacing and a final "." or
// "!" ("" when there is none): a skill the library already has, under
// another name.
func (c *proposalChecker) samePrinciple(principle, except string) string {
	key := func(t string) string {
		return strings.TrimRight(strings.Join(strings.Fields(strings.ToLower(NormalName(t))), " "), ".!")
	}
	if key(principle) == "" {
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(c.principles)) {
		if k != except && c.names[k] && key(c.principles[k]) == key(principle) {
			return k
		}
	}
	return ""
}

func (c *proposalChecker) check(i int, p Proposal) error {
	var probs []error
	add := func(err error) { probs = append(probs, err) }
	invalid := func(format string, args ...any) {
		add(fmt.Errorf(format+": %w", append(args, ErrInvalid)...))
	}
	probs = append(probs, p.typeErrs...)
	// Duplicates: a skill named by an earlier proposal.
	for _, n := range []string{p.SkillName, p.OldSkillName} {
		if n == "" {
			continue
		}
		if j, ok := c.touched[NormalName(n)]; ok {
			invalid("skill %q is already named by proposal %d", n, j+1)
		}
	}
	for _, n := range []string{p.SkillName, p.OldSkillName} {
		if _, ok := c.touched[NormalName(n)]; !ok && n != "" {
			c.touched[NormalName(n)] = i
		}
	}
	switch p.Action {
	case "":
		if !p.bad("action") {
			invalid("action is missing")
		}
	case ActionAdd, ActionUpdate, ActionRemove:
	default:
		invalid("action %q is not add, update or remove", p.Action)
	}
	if p.SkillName == "" && !p.bad("skill_name") {
		invalid("skill_name is missing")
	}
	checkNewName := func(name string) {
		for _, err := range checkProposedName(name) {
			add(err)
		}
	}
	switch p.Action {
	case ActionAdd:
		if p.SkillName != "" {
			checkNewName(p.SkillName)
			if c.exists(p.SkillName, "") {
				invalid("skill %q already exists; propose an update instead", p.SkillName)
			} else if twin := c.lookalike(p.SkillName, ""); twin != "" {
				invalid("skill %q already exists as %q (the names differ only in - and _); propose an update of %q instead", p.SkillName, twin, twin)
			}
		}
		if twin := c.samePrinciple(p.Principle, ""); twin != "" {
			invalid("the principle repeats that of skill %q, word for word; propose an update of %q instead", twin, twin)
		}
		if p.Principle == "" && !p.bad("principle") {
			invalid("principle is missing")
		}
		if p.WhenToApply == "" && !p.bad("when_to_apply") {
			invalid("when_to_apply is missing")
		}
	case ActionUpdate:
		t := p.target()
		if t != "" && !c.names[t] {
			add(fmt.Errorf("skill %q does not exist: %w", t, ErrNotFound))
		}
		rename := p.OldSkillName != "" && p.OldSkillName != p.SkillName
		if rename && p.SkillName != "" {
			checkNewName(p.SkillName)
			if c.exists(p.SkillName, p.target()) {
				invalid("cannot rename to %q: a skill of that name exists", p.SkillName)
			} else if twin := c.lookalike(p.SkillName, p.target()); twin != "" {
				invalid("cannot rename to %q: skill %q exists (the names differ only in - and _)", p.SkillName, twin)
			}
		}
		if twin := c.samePrinciple(p.Principle, p.target()); c.names[t] && twin != "" {
			invalid("the principle repeats that of skill %q, word for word; update or remove %q instead", twin, twin)
		}
		if !rename && p.Principle == "" && p.WhenToApply == "" && !p.bad("principle") && !p.bad("when_to_apply") {
			invalid("nothing to change: principle and when_to_apply are missing")
		}
	case ActionRemove:
		if p.SkillName != "" && !c.names[p.SkillName] {
			add(fmt.Errorf("skill %q does not exist: %w", p.SkillName, ErrNotFound))
		}
	}
	for _, f := range []struct{ name, text string }{{"principle", p.Principle}, {"when_to_apply", p.WhenToApply}} {
		if f.text == "" {
			continue
		}
		if err := validateField(f.name, f.text); err != nil {
			add(err)
		}
		if tag := tagLine(f.text); tag != "" {
			invalid("%s has a line that opens with the tag %q; a skill is a principle in prose, not prompt markup (a tool's output the teacher copied?)", f.name, tag)
		}
	}
	if len(probs) == 0 {
		return nil
	}
	return &ProposalError{Index: i, Proposal: p, Problems: probs}
}

// tagLine returns the tag that opens a line of text ("</skill>",
// "<primary_directive>"), "" when no line opens with one (see
// textx.OpensWithTag). Such a line is the prompts' own markup: the agent
// escapes it in a prompt, but a skill holding it is no general principle.
func tagLine(text string) string {
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if textx.OpensWithTag(t) {
			if end := strings.IndexAny(t, "> "); end > 0 {
				return t[:end] + ">"
			}
			return t
		}
	}
	return ""
}

func (c *proposalChecker) commit(p Proposal) {
	switch p.Action {
	case ActionAdd:
		c.names[p.SkillName] = true
		c.principles[p.SkillName] = p.Principle
	case ActionUpdate:
		principle := c.principles[p.target()]
		if p.Principle != "" {
			principle = p.Principle
		}
		delete(c.names, p.target())
		delete(c.principles, p.target())
		c.names[p.SkillName] = true
		c.principles[p.SkillName] = principle
	case ActionRemove:
		delete(c.names, p.SkillName)
		delete(c.principles, p.SkillName)
	}
}

var (
	reDate     = regexp.MustCompile(`(19|20)\d\d[-_./]?(0[1-9]|1[0-2])[-_./]?(0[1-9]|[12]\d|3[01])`)
	reFileName = regexp.MustCompile(`[A-Za-z0-9_-]\.[A-Za-z][A-Za-z0-9]{0,4}($|[^A-Za-z0-9])`)
	reRunID    = regexp.MustCompile(`(?i)(^|[^a-z])(run|job|task|ticket|issue|bug|pr|build|id|step|session|iter|iteration|attempt|commit)[_\-\s#]?\d+`)
	reHTTPCode = regexp.MustCompile(`(^|[_\-])[1-5]\d\d($|[_\-])`)
	reUUID     = regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}`)
	reDigits   = regexp.MustCompile(`\d{3,}`)
	reSnake    = regexp.MustCompile(`^[a-z][a-z0-9]*([_-][a-z0-9]+)*$`)
)

// InstanceSpecific reports why a skill name looks tied to one task instance
// rather than a general technique ("" when it does not): a date, a file
// name with an extension, a run/job/issue/step number, a UUID or long hex
// id, a run of three or more digits (but a word that is an HTTP status
// code, 100 to 599, is general), or digits making up more than a quarter of
// its letters and digits.
func InstanceSpecific(name string) string {
	switch {
	case reDate.MatchString(name):
		return "contains a date"
	case reFileName.MatchString(name):
		return "contains a file name"
	case reRunID.MatchString(name):
		return "contains a run, job, issue or step number"
	case reUUID.MatchString(name) || hasHexID(name):
		return "contains an ID"
	}
	// An HTTP status code (retry_on_429, handle_http_404) names a class of
	// responses, not an instance.
	general := reHTTPCode.ReplaceAllString(name, "${1}status${2}")
	if reDigits.MatchString(general) {
		return "contains a long number"
	}
	digits, alnum := 0, 0
	for _, r := range general {
		if unicode.IsDigit(r) {
			digits++
		}
		if unicode.IsDigit(r) || unicode.IsLetter(r) {
			alnum++
		}
	}
	if alnum > 0 && digits*4 > alnum {
		return "is mostly digits"
	}
	return ""
}

// hasHexID reports a word of 8 or more hex digits mixing letters and digits.
func hasHexID(name string) bool {
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' || r == ' ' || r == '.' }) {
		if len(w) < 8 {
			continue
		}
		hex, letters, digits := true, 0, 0
		for _, r := range strings.ToLower(w) {
			switch {
			case r >= '0' && r <= '9':
				digits++
			case r >= 'a' && r <= 'f':
				letters++
			default:
				hex = false
			}
		}
		if hex && letters > 0 && digits > 0 {
			return true
		}
	}
	return false
}

// checkProposedName applies ValidateName, InstanceSpecific, the length
// limit for proposals and the snake_case rule.
func checkProposedName(name string) []error {
	if err := ValidateName(name); err != nil {
		return []error{err}
	}
	var errs []error
	if why := InstanceSpecific(name); why != "" {
		errs = append(errs, fmt.Errorf("skill name %q %s; name the general technique instead: %w", name, why, ErrInvalid))
	}
	if n := utf8.RuneCountInString(name); n > MaxProposalNameLen {
		errs = append(errs, fmt.Errorf("skill name is %d characters long; the limit is %d: %w", n, MaxProposalNameLen, ErrInvalid))
	}
	if !reSnake.MatchString(name) {
		errs = append(errs, fmt.Errorf("skill name %q is not lowercase words joined by _ (e.g. verify_output_paths): %w", name, ErrInvalid))
	}
	return errs
}

// Report says what Apply did with each proposal.
type Report struct {
	Applied  []Applied  `json:"applied"`
	Rejected []Rejected `json:"rejected"`
}

// Applied is a proposal Apply carried out.
type Applied struct {
	Index    int      `json:"index"`
	Proposal Proposal `json:"proposal"`
}

// Rejected is a proposal Apply refused, with why.
type Rejected struct {
	Index    int      `json:"index"`
	Proposal Proposal `json:"proposal"`
	Err      error    `json:"-"`
	Problem  string   `json:"problem"`
}

// String summarises the report, one line per proposal.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d applied, %d rejected\n", len(r.Applied), len(r.Rejected))
	for _, a := range r.Applied {
		fmt.Fprintf(&b, "applied: %s %q\n", a.Proposal.Action, a.Proposal.SkillName)
	}
	for _, x := range r.Rejected {
		fmt.Fprintf(&b, "rejected: %s\n", x.Problem)
	}
	return b.String()
}

var errNoChange = errors.New("no change")

// Apply validates proposals in order against the library (as
// ValidateProposals does) and carries out the valid ones in a single atomic
// save under the lock. Added skills get created_iteration and
// last_used_iteration = iteration and usage_count 0; updates keep the
// counters. Invalid proposals are reported, not returned as errors: the
// error is for failures to load or save the library.
func (l *Library) Apply(ps []Proposal, iteration int) (Report, error) {
	rep := Report{Applied: []Applied{}, Rejected: []Rejected{}}
	err := l.mutateExtra(func(m map[string]Skill, extra map[string]string) error {
		rep = Report{Applied: []Applied{}, Rejected: []Rejected{}}
		existing := make([]Skill, 0, len(m))
		for _, s := range m {
			existing = append(existing, s)
		}
		c := newProposalChecker(existing)
		for i, p := range ps {
			p = c.canonical(p)
			if err := c.check(i, p); err != nil {
				rep.Rejected = append(rep.Rejected, Rejected{Index: i, Proposal: p, Err: err, Problem: err.Error()})
				continue
			}
			c.commit(p)
			switch p.Action {
			case ActionAdd:
				m[p.SkillName] = Skill{Name: p.SkillName, Principle: p.Principle, WhenToApply: p.WhenToApply,
					CreatedIteration: iteration, LastUsedIteration: iteration}
			case ActionUpdate:
				s := m[p.target()]
				delete(m, p.target())
				if e, ok := extra[p.target()]; ok && p.target() != p.SkillName {
					extra[p.SkillName] = e
					delete(extra, p.target())
				}
				s.Name = p.SkillName
				if p.Principle != "" {
					s.Principle = p.Principle
				}
				if p.WhenToApply != "" {
					s.WhenToApply = p.WhenToApply
				}
				m[s.Name] = s
			case ActionRemove:
				delete(m, p.SkillName)
			}
			rep.Applied = append(rep.Applied, Applied{Index: i, Proposal: p})
		}
		if len(rep.Applied) == 0 {
			return errNoChange
		}
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("cannot apply skill proposals: %w", err)
	}
	return rep, nil
}
