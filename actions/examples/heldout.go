package examples

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The first plan writes the examples and the blueprint step's instruction
// in one reply, so the instruction may quote an example: the writer of the
// blueprint is shown it, and the blueprint is shown to the writer of the
// code. The example held out from that writer is therefore one whose
// values the plan's steps do not quote (holdOut), when there is one.

// minQuotedLen is the length under which a value's text is too common to
// tell a quote from a coincidence (a 3, a "yes").
const minQuotedLen = 4

// planText is the text of the plan's steps a writer is shown: their titles
// and instructions.
func planText(plan []any) string {
	var b strings.Builder
	for _, raw := range plan {
		step, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		for _, k := range []string{"title", "instruction"} {
			if s, ok := step[k].(string); ok {
				b.WriteString(s)
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// quotesExample reports whether text quotes one of the example's input or
// expected values that the target does not already hold (a value the
// target gives is no secret of the example).
func quotesExample(text, target string, raw any) bool {
	if text == "" {
		return false
	}
	ex, err := Decode(raw)
	if err != nil {
		return false
	}
	for _, vals := range []map[string]any{ex.Vars, ex.Expect} {
		for _, v := range vals {
			for _, form := range valueForms(v) {
				if len(form) >= minQuotedLen && strings.Contains(text, form) && !strings.Contains(target, form) {
					return true
				}
			}
		}
	}
	return false
}

// valueForms are the texts a value may be quoted as: a string as it is,
// anything else as JSON (19723, 3.6576, true, ["a","b"]).
func valueForms(v any) []string {
	if s, ok := v.(string); ok {
		return []string{strings.TrimSpace(s)}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return []string{string(b)}
}

// HeldOutOf returns the example held out from the writer of the code
// (holdOut, against the plan's steps and the target), or a problem when
// the plan's steps quote every example that succeeds: held out, such an
// example would not be unseen (the writer of the blueprint reads the steps,
// the writer of the code the blueprint), so a script fitted to what it was
// shown would pass it. The examples are then written again, as for any
// other problem of theirs.
func HeldOutOf(list, plan []any, target string) (int, string) {
	text := planText(plan)
	held, free := holdOutFree(list, func(raw any) bool { return quotesExample(text, target, raw) })
	if held == 0 || free {
		return held, ""
	}
	var quoted []string
	for i, raw := range list {
		ex, err := Decode(raw)
		if err == nil && ex.Kind != KindError {
			quoted = append(quoted, fmt.Sprintf("example %d %q", i+1, ex.Name))
		}
	}
	return 0, fmt.Sprintf("examples: the plan's steps (their titles and instructions) quote a value of every example that succeeds (%s), so none can be held out from the writer of the code unseen (the writer of the blueprint reads the steps): name the variables in the steps, never an example's values", strings.Join(quoted, ", "))
}

// holdOut returns the number (from 1) of the example held out from the
// writer: the last typical one when there are two or more, else the last
// that succeeds; 0 when fewer than two succeed. Of those, one that quoted
// (the plan's steps quote its values: quotesExample) does not hold is
// preferred, the last such. The writer of the code is shown the other
// examples only, so a script fitted to the inputs it saw (a lookup of the
// examples) fails the one it did not see.
func holdOut(list []any, quoted func(raw any) bool) int {
	n, _ := holdOutFree(list, quoted)
	return n
}

// holdOutFree is holdOut, and whether the example it names is one the plan
// does not quote: false only when the plan quotes every example that
// succeeds (or fewer than two succeed).
func holdOutFree(list []any, quoted func(raw any) bool) (int, bool) {
	lastTypical, typicals, lastSuccess, successes := 0, 0, 0, 0
	freeTypical, freeSuccess := 0, 0 // the last ones the plan does not quote
	for i, raw := range list {
		ex, err := Decode(raw)
		if err != nil || ex.Kind == KindError {
			continue
		}
		free := quoted == nil || !quoted(raw)
		lastSuccess, successes = i+1, successes+1
		if free {
			freeSuccess = i + 1
		}
		if ex.Kind == KindTypical {
			lastTypical, typicals = i+1, typicals+1
			if free {
				freeTypical = i + 1
			}
		}
	}
	switch {
	case typicals >= 2 && freeTypical > 0:
		return freeTypical, true
	case successes >= 2 && freeSuccess > 0:
		return freeSuccess, true // every typical one is quoted: an edge one the plan does not quote
	case typicals >= 2:
		return lastTypical, false
	case successes >= 2:
		return lastSuccess, false
	}
	return 0, false
}
