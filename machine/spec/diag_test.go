package spec

import "testing"

func TestDidYouMeanReturnsTheClosestCandidateOnlyWhenClose(t *testing.T) {
	states := []string{"optimizer", "evaluator", "done"}
	for _, tt := range []struct {
		name   string
		cands  []string
		want   string
		wantOK bool
	}{
		{"optimiser", states, "optimizer", true},
		{"EVALUATOR", states, "evaluator", true}, // case is ignored
		{"don", states, "done", true},
		{"optim", states, "optimizer", true}, // a prefix is close whatever the distance
		{"banana", states, "", false},
		{"done", []string{"done"}, "", false}, // the name itself is not a suggestion
		{"x", nil, "", false},
	} {
		got, ok := DidYouMean(tt.name, tt.cands)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("DidYouMean(%q) = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.wantOK)
		}
	}
	if h := didYouMean("optimiser", states); h != `did you mean "optimizer"?` {
		t.Errorf("didYouMean hint = %q", h)
	}
	if h := didYouMean("banana", states); h != "" {
		t.Errorf("didYouMean hint for a far name = %q, want none", h)
	}
}
