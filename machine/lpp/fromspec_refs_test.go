package lpp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestImportThenExportGivesBackAValueFromTheSpecHoldsAsALiteral: a
// value_from the import writes as a literal (a payload field stored into
// properties of two types: nil; the whole payload of an event that
// carries no declared field: {}) was exported as "value": null / {}. The
// blueprints of testdata/lpp/valuefrom are the random blueprints of the
// audit's fuzzer where this happened, and one of the whole payload.
func TestImportThenExportGivesBackAValueFromTheSpecHoldsAsALiteral(t *testing.T) {
	files, _ := filepath.Glob("../testdata/lpp/valuefrom/*.json")
	require.Len(t, files, 7)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			bp, ds := Parse(f, src)
			require.False(t, ds.HasErrors(), "%v", ds)
			out, err := ToSpecYAML(bp, &mapfile.Mapping{Unmapped: true})
			require.NoError(t, err)
			spec, sd := mspec.Parse("x.yaml", out)
			require.False(t, sd.HasErrors(), "%v", sd)
			back, err := FromSpec(spec)
			require.NoError(t, err)
			var orig, got struct {
				Actions     map[string]json.RawMessage `json:"actions"`
				Transitions []struct {
					Actions []string `json:"actions"`
				} `json:"transitions"`
			}
			require.NoError(t, json.Unmarshal(src, &orig))
			require.NoError(t, json.Unmarshal(back, &got))
			n := 0
			for _, tr := range orig.Transitions {
				for _, id := range tr.Actions {
					assert.JSONEq(t, string(orig.Actions[id]), string(got.Actions[id]), "action %s", id)
					n++
				}
			}
			require.Positive(t, n)
		})
	}
}
