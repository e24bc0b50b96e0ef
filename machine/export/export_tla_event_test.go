package export_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/export"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// An event used whole, as a run reads it (docs/spec.md: a map of the
// payload's fields, and `event` a map of name and payload), translates: the
// payload is its TLA+ record, which compares equal with the function a map
// literal translates into. The export refused it with Go's name of a struct
// type and no position (`mismatched types struct { F0 string "expr:\"n\"" }
// and map[string]interface {}`).
func TestExportTLATranslatesAWholeEvent(t *testing.T) {
	const src = `lpp: 1
name: t
context:
  got: map
initial: a
states:
  a:
    on:
      GO:
        - {to: done, when: 'event.payload == {"n": "a"}', set: {got: event.payload}}
        - {to: done, when: '"n" in event.payload && len(event.payload) == 1', set: {got: '{"e": event}'}}
      STOP: {to: done, set: {got: event.payload}}
  done: {final: true}
events:
  GO:
    payload:
      n: {type: string, enum: [a, b]}
  STOP: {}
`
	mod, err := export.ExportTLA(spectest.Compile(t, src, nil))
	require.NoError(t, err)
	checkTLAShape(t, mod)
	text := string(mod.Module)
	for _, want := range []string{
		`/\ (payload = ("n" :> "a"))`,
		`/\ got' = payload`,
		`/\ (("n" \in DOMAIN payload) /\ (Cardinality(DOMAIN payload) = 1))`,
		`/\ got' = ("e" :> ("name" :> "GO" @@ "payload" :> payload))`,
		`/\ got' = <<>>`,
	} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "_plain_event")
}

// A whole event in what has no TLA+ equivalent is named as the spec writes
// it, not as the call that gives it as a map.
func TestExportTLANamesAWholeEventAsWritten(t *testing.T) {
	const src = "lpp: 1\nname: t\ncontext:\n  ks: list\ninitial: a\nstates:\n  a:\n    on:\n      GO: {to: done, set: {ks: 'keys(event.payload)'}}\n  done: {final: true}\nevents:\n  GO:\n    payload:\n      n: int\n"
	_, err := export.ExportTLA(spectest.Compile(t, src, nil))
	require.Error(t, err)
	assert.Equal(t, "test.yaml:9:33: cannot export to TLA+: set of on GO[0] of state \"a\": ks: `keys(event.payload)`: the function keys has no TLA+ equivalent; rewrite it with the operators docs/check.md lists under \"TLA+ export\"", err.Error())
	assert.False(t, strings.Contains(err.Error(), "_plain_event"))
}
