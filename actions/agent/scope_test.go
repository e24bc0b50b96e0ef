package agent

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// listMem is a MemoryTx of lists only, for scopedSkillMemory.
type listMem map[string][]json.RawMessage

func (m listMem) Get(string, any) (bool, error)      { return false, nil }
func (m listMem) Items(key string) []json.RawMessage { return m[key] }
func (m listMem) Len(key string) int                 { return len(m[key]) }
func (m listMem) Put(string, any) error              { return nil }
func (m listMem) Append(key string, v any) error {
	b, err := json.Marshal(v)
	m[key] = append(m[key], b)
	return err
}
func (m listMem) Clear(key string)  { delete(m, key) }
func (m listMem) Delete(key string) { delete(m, key) }

// commit appends step's lines to L2 with their origin, as commit_step does.
func (m listMem) commit(step int, lines ...string) {
	_ = m.Append(MemL2Origin, l2Origin{Step: step, First: m.Len(MemL2), Count: len(lines)})
	for _, l := range lines {
		_ = m.Append(MemL2, l)
	}
}

func planOf(t *testing.T, js string) *SkillPlan {
	t.Helper()
	p, err := ParsePlan(js, 0)
	require.NoError(t, err)
	return p
}

func TestScopedSkillMemory(t *testing.T) {
	const fourSteps = `{"goal": "g", "steps": [
		{"index": 1, "optimizer_instruction": "a", "evaluator_instruction": "a", "global": true},
		{"index": 2, "optimizer_instruction": "b", "evaluator_instruction": "b"},
		{"index": 3, "optimizer_instruction": "c", "evaluator_instruction": "c", "depends_on": [2]},
		{"index": 4, "optimizer_instruction": "d", "evaluator_instruction": "d", "depends_on": [3]},
		{"index": 5, "optimizer_instruction": "e", "evaluator_instruction": "e", "depends_on": "2"}]}`
	tests := []struct {
		name string
		plan string
		step int // 1-based
		mem  func(m listMem)
		want string
	}{
		{name: "empty L2 keeps the placeholder", plan: fourSteps, step: 2, mem: func(listMem) {},
			want: "(empty: no step has committed outputs yet)"},
		{name: "a global step's outputs are in full, the others by key", plan: fourSteps, step: 2,
			mem:  func(m listMem) { m.commit(1, "DIR=out") },
			want: "DIR=out"},
		{name: "transitive dependencies in full, the rest by key", plan: fourSteps, step: 4,
			mem: func(m listMem) {
				m.commit(1, "DIR=out")
				m.commit(2, "B=2")
				m.commit(3, "C=3", "C2=33")
			},
			want: "DIR=out\nB=2\nC=3\nC2=33"},
		{name: "a step it does not depend on is listed by key, oldest first", plan: fourSteps, step: 5,
			mem: func(m listMem) {
				m.commit(1, "DIR=out")
				m.commit(2, "B=2")
				m.commit(3, "C=3", "C2=33")
				m.commit(4, "D=4")
			},
			want: "DIR=out\nB=2\n(values not shown, from steps this one does not depend on: C, C2, D)"},
		{name: "a key shown in full is not listed again", plan: fourSteps, step: 5,
			mem: func(m listMem) {
				m.commit(2, "B=2")
				m.commit(4, "B=4")
			},
			want: "B=2"},
		{name: "lines of unknown origin (runs begun before scoping) are in full", plan: fourSteps, step: 2,
			mem:  func(m listMem) { _ = m.Append(MemL2, "OLD=1"); m.commit(4, "D=4") },
			want: "OLD=1\n(values not shown, from steps this one does not depend on: D)"},
		{name: "a plan with no depends_on and no global shows everything", plan: `{"goal": "g", "steps": [
			{"index": 1, "optimizer_instruction": "a", "evaluator_instruction": "a"},
			{"index": 2, "optimizer_instruction": "b", "evaluator_instruction": "b"},
			{"index": 3, "optimizer_instruction": "c", "evaluator_instruction": "c"}]}`, step: 3,
			mem:  func(m listMem) { m.commit(1, "A=1"); m.commit(2, "B=2") },
			want: "A=1\nB=2"},
		{name: "nothing in scope: only the keys", plan: fourSteps, step: 3,
			mem:  func(m listMem) { m.commit(4, "D=4") },
			want: "(values not shown, from steps this one does not depend on: D)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := planOf(t, tt.plan)
			m := listMem{}
			tt.mem(m)
			assert.Equal(t, tt.want, scopedSkillMemory(m, p, p.Steps[tt.step-1]))
		})
	}
}

func TestScopedSkillMemoryNamesTheMostRecentKeys(t *testing.T) {
	js := `{"goal": "g", "steps": [{"index": 1, "optimizer_instruction": "a", "evaluator_instruction": "a", "global": true}`
	for i := 2; i <= 40; i++ {
		js += `, {"index": ` + itoa(i) + `, "optimizer_instruction": "x", "evaluator_instruction": "x"}`
	}
	p := planOf(t, js+`]}`)
	m := listMem{}
	for i := 1; i <= 39; i++ {
		m.commit(i, "K"+itoa(i)+"=v")
	}
	got := scopedSkillMemory(m, p, p.Steps[39])
	want := "K1=v\n(values not shown, from steps this one does not depend on: "
	for i := 16; i <= 39; i++ {
		if i > 16 {
			want += ", "
		}
		want += "K" + itoa(i)
	}
	assert.Equal(t, want+"; 14 older key(s))", got)
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestPlanStepGlobal(t *testing.T) {
	tests := []struct {
		global  string
		want    bool
		wantErr string
	}{
		{global: `true`, want: true},
		{global: `false`},
		{global: `"true"`, want: true},
		{global: `null`},
		{global: `1`, wantErr: `the plan is not valid JSON for the SkillPlan schema: "global" must be true or false, not 1`},
	}
	for _, tt := range tests {
		t.Run(tt.global, func(t *testing.T) {
			p, err := ParsePlan(`{"goal": "g", "steps": [{"index": 1, "optimizer_instruction": "a", "evaluator_instruction": "a", "global": `+tt.global+`}]}`, 0)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, p.Steps[0].Global)
		})
	}
}
