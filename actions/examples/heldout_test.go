package examples

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTheWriterIsNotShownTheLastTypicalExample(t *testing.T) {
	ex := func(name, kind string) map[string]any {
		return map[string]any{"name": name, "kind": kind}
	}
	tests := []struct {
		name     string
		examples []any
		held     int
	}{
		{name: "the last typical one of two or more", examples: []any{ex("a", "typical"), ex("b", "typical"), ex("e", "edge"), ex("x", "error"), ex("c", "typical")}, held: 5},
		{name: "else the last that succeeds", examples: []any{ex("a", "typical"), ex("e", "edge"), ex("x", "error")}, held: 2},
		{name: "none when fewer than two succeed", examples: []any{ex("e", "edge"), ex("x", "error")}, held: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.held, holdOut(tt.examples, nil))
		})
	}
}

func TestTheHeldOutExampleIsOneThePlanDoesNotQuote(t *testing.T) {
	ex := func(name, kind, date string, days int) map[string]any {
		return map[string]any{"name": name, "kind": kind, "vars": map[string]any{"date": date}, "expect": map[string]any{"days": days}}
	}
	list := []any{ex("new year", "typical", "2024-01-01", 19723), ex("leap", "edge", "2000-02-29", 11016), ex("y2k38", "typical", "2038-01-19", 24855), ex("moon", "typical", "1969-07-20", -165)}
	step := func(instruction string) []any {
		return []any{map[string]any{"title": "the blueprint", "files": []any{"days.yaml"}, "instruction": instruction}}
	}
	tests := []struct {
		name, instruction, target string
		held                      int
	}{
		{name: "a plan that quotes no example: the last typical one", instruction: "read date, write days with a script.run state", held: 4},
		{name: "a plan that quotes the last typical example's input: the typical one before it", instruction: "a script.run state; e.g. 1969-07-20 gives -165", held: 3},
		{name: "a plan that quotes an expected value only", instruction: "a script.run state; the moon landing is day -165", held: 3},
		{name: "a value the target gives is no quote", instruction: "a script.run state; e.g. 1969-07-20", target: "days since 1970 of a date such as 1969-07-20", held: 4},
		{name: "a plan that quotes every typical example: the edge one it does not quote", instruction: "2024-01-01, 2038-01-19 and 1969-07-20", held: 2},
		{name: "a plan that quotes every example that succeeds: the last typical one, refused by HeldOutOf", instruction: "2024-01-01, 2000-02-29, 2038-01-19 and 1969-07-20", held: 4},
		{name: "a part of a value is no quote", instruction: "a script.run state; 1969 is before the epoch", held: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := planText(step(tt.instruction))
			assert.Equal(t, tt.held, holdOut(list, func(raw any) bool { return quotesExample(text, tt.target, raw) }))
		})
	}
}

func TestAPlanQuotingEveryExampleThatSucceedsIsRefused(t *testing.T) {
	ex := func(name, kind, date string, days int) map[string]any {
		return map[string]any{"name": name, "kind": kind, "vars": map[string]any{"date": date}, "expect": map[string]any{"days": days}}
	}
	list := []any{ex("new year", "typical", "2024-01-01", 19723), ex("leap", "edge", "2000-02-29", 11016), ex("moon", "typical", "1969-07-20", -165), map[string]any{"name": "not a date", "kind": "error", "vars": map[string]any{"date": "yesterday"}, "expect": map[string]any{}}}
	step := func(instruction string) []any {
		return []any{map[string]any{"title": "the blueprint", "files": []any{"days.yaml"}, "instruction": instruction}}
	}
	tests := []struct {
		name, instruction string
		held              int
		problem           string
	}{
		{name: "a plan that quotes one example: another is held out", instruction: "e.g. 1969-07-20 gives -165", held: 1},
		{name: "a plan that quotes the error example only: no problem", instruction: "a date such as yesterday is refused", held: 3},
		{
			name: "a plan that quotes a value of every example that succeeds is refused, naming them", instruction: "19723 for 2024-01-01, 11016 for a leap day, -165 for 1969-07-20",
			problem: `examples: the plan's steps (their titles and instructions) quote a value of every example that succeeds (example 1 "new year", example 2 "leap", example 3 "moon"), so none can be held out from the writer of the code unseen (the writer of the blueprint reads the steps): name the variables in the steps, never an example's values`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			held, problem := HeldOutOf(list, step(tt.instruction), "days since 1970-01-01 of a date")
			assert.Equal(t, tt.held, held)
			assert.Equal(t, tt.problem, problem)
		})
	}
}
