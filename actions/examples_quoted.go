package actions

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
	ex, err := decodeExample(raw)
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

// heldOutOf returns the example held out from the writer of the code
// (holdOut, against the plan's steps and the target), or a problem when
// the plan's steps quote every example that succeeds: held out, such an
// example would not be unseen (the writer of the blueprint reads the steps,
// the writer of the code the blueprint), so a script fitted to what it was
// shown would pass it. The examples are then written again, as for any
// other problem of theirs.
func heldOutOf(list, plan []any, target string) (int, string) {
	text := planText(plan)
	held, free := holdOutFree(list, func(raw any) bool { return quotesExample(text, target, raw) })
	if held == 0 || free {
		return held, ""
	}
	var quoted []string
	for i, raw := range list {
		ex, err := decodeExample(raw)
		if err == nil && ex.Kind != kindError {
			quoted = append(quoted, fmt.Sprintf("example %d %q", i+1, ex.Name))
		}
	}
	return 0, fmt.Sprintf("examples: the plan's steps (their titles and instructions) quote a value of every example that succeeds (%s), so none can be held out from the writer of the code unseen (the writer of the blueprint reads the steps): name the variables in the steps, never an example's values", strings.Join(quoted, ", "))
}
