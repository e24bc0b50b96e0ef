package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"
)

// contractorModel is an OpenAI-compatible server playing the Skill
// Contractor's model: it tells the calling state from the prompt and
// answers from that state's queue of replies, repeating the last one.
type contractorModel struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	replies map[string][]string
	prompts map[string][]string // the last user message of each call, by state
}

// demoReplies are the bundled demo's replies, by state, in order.
func demoReplies(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "specs", "contractor", "demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var demo struct {
		Replies []struct{ State, Text string }
	}
	if err := yaml.Unmarshal(b, &demo); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, r := range demo.Replies {
		out[r.State] = append(out[r.State], r.Text)
	}
	return out
}

func newContractorModel(t *testing.T, replies map[string][]string) *contractorModel {
	m := &contractorModel{t: t, replies: replies, prompts: map[string][]string{}}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

// stateOf tells the contractor's state from its prompt (the first user
// message: repairs append to the same conversation).
func stateOf(prompt string) string {
	switch {
	case strings.Contains(prompt, "Phase 1 of 2") || strings.Contains(prompt, "Phase 2 of 2"):
		return "planning"
	case strings.Contains(prompt, `Answer with one JSON object {"files"`):
		return "executing"
	case strings.Contains(prompt, "Score skill"):
		return "evaluating"
	case strings.Contains(prompt, "Work out, by hand and independently"):
		return "deriving"
	case strings.Contains(prompt, "needs a decision"):
		return "reviewing"
	case strings.Contains(prompt, "Read back a scorer's verdict"):
		return "confirming"
	case strings.Contains(prompt, "Propose hidden probes"):
		return "probing"
	case strings.Contains(prompt, "on each probe input below"):
		return "probe_deriving"
	}
	return "unknown"
}

func (m *contractorModel) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	first, last := "", ""
	for _, msg := range body.Messages {
		if msg.Role == "user" {
			if first == "" {
				first = msg.Content
			}
			last = msg.Content
		}
	}
	state := stateOf(first)
	m.mu.Lock()
	m.prompts[state] = append(m.prompts[state], last)
	q := m.replies[state]
	reply := ""
	switch {
	case len(q) == 0:
		m.t.Errorf("contractor model: no reply for state %s; prompt:\n%s", state, first)
	case len(q) == 1:
		reply = q[0]
	default:
		reply, m.replies[state] = q[0], q[1:]
	}
	m.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": len(first) / 4, "completion_tokens": len(reply) / 4, "total_tokens": (len(first) + len(reply)) / 4},
	})
}

// promptsOf returns the user messages the state's calls ended with.
func (m *contractorModel) promptsOf(state string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.prompts[state]...)
}

// runContractor runs the contractor on a fresh project with the model.
func runContractor(t *testing.T, m *contractorModel, vars ...string) (runResult, string) {
	t.Helper()
	root := newContractorProject(t)
	noProvider(t)
	t.Setenv("OPENAI_API_BASE", m.srv.URL)
	t.Setenv("OPENAI_API_KEY", "test-key")
	args := []string{"run", "specs/skill_contractor.yaml", "--llm", "openai:test-model", "--var", "target=" + contractorTarget}
	for _, v := range vars {
		args = append(args, "--var", v)
	}
	return contractorRun(t, root, args...), root
}

// runVar reads a context variable of the project's only run: the last
// value its journal's steps gave it.
func runVar(t *testing.T, root, name string) any {
	t.Helper()
	journals, _ := filepath.Glob(filepath.Join(root, ".lppctl", "runs", "*", "journal.jsonl"))
	if len(journals) != 1 {
		t.Fatalf("want one run, got %q", journals)
	}
	b, err := os.ReadFile(journals[0])
	if err != nil {
		t.Fatal(err)
	}
	var val any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec struct {
			Vars map[string]any `json:"vars"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("journal: %v", err)
		}
		if v, ok := rec.Vars[name]; ok {
			val = v
		}
	}
	return val
}

func TestContractorModelMistakes(t *testing.T) {
	demo := demoReplies(t)
	files := func(f map[string]string) string {
		b, _ := json.Marshal(map[string]any{"files": f})
		return string(b)
	}
	blueprintV2 := demo["executing"][1]
	evil := files(map[string]string{"../../../scripts/evil.py": "print('escaped')\n"})
	subprocessScript := files(map[string]string{"scripts/word_stats.py": "import json\nimport subprocess\nimport sys\n\n\ndef main():\n    data = json.load(sys.stdin)\n    print(json.dumps({'words': 0}))\n\n\nif __name__ == \"__main__\":\n    main()\n"})
	with := func(state string, replies ...string) map[string][]string {
		out := map[string][]string{}
		for k, v := range demo {
			out[k] = append([]string(nil), v...)
		}
		out[state] = replies
		return out
	}
	exec := demo["executing"] // bp v1, bp v2, script v1, docs, script v2
	// skipFirstRefinement: the blueprint passes at its first version, so the
	// plans go on with phase 2's (the demo's second plan refines phase 1).
	skipFirstRefinement := func(r map[string][]string) map[string][]string {
		r["planning"] = append([]string{demo["planning"][0]}, demo["planning"][2:]...)
		return r
	}

	tests := []struct {
		name    string
		replies map[string][]string
		vars    []string
		code    int
		out     []string // in the run's output
		prompt  [2]string
		varWant map[string]string // context variable → substring of its final value
		absent  []string          // files that must not exist
		notIn   [2]string         // no prompt of the state holds the text
	}{
		{
			name:    "an unparsable blueprint is repaired by re-prompting with the parse error",
			replies: skipFirstRefinement(with("executing", append([]string{"Sure! Here is the blueprint: {\"files\": {\"word_stats.yaml\": \"lpp: 1"}, exec[1:]...)...)),
			code:    0,
			out:     []string{`parsing → executing  [repair_attempts < max_repairs]`, "completed in complete"},
			prompt:  [2]string{"executing", "Your last answer for this step was refused: the reply is not valid JSON"},
		},
		{
			name:    "a blueprint whose YAML does not parse is repaired with its position",
			replies: skipFirstRefinement(with("executing", append([]string{files(map[string]string{"word_stats.yaml": "lpp: 1\nname: word_stats\nstates:\n  read:\n   do: log\n  bad: [\n"})}, exec[1:]...)...)),
			code:    0,
			out:     []string{`parsing → executing  [repair_attempts < max_repairs]`, "completed in complete"},
			prompt:  [2]string{"executing", "Your last answer for this step was refused: word_stats.yaml:7:1: the blueprint is not valid YAML:"},
		},
		{
			name:    "a blueprint that never validates ends in error with the last diagnostics",
			replies: with("executing", exec[0]),
			vars:    []string{"max_iterations=2"},
			code:    exitPaused,
			out:     []string{"refining → recovering  [iteration >= max_iterations]", "recovering → error  next[3]", "paused in error after"},
			varWant: map[string]string{"error": "blueprint did not pass after 2 iteration(s) (max_iterations 2); the last diagnostics:\noutput/contractor/word_stats.attempt/word_stats.yaml:21:3: error: state \"count\" has no way out"},
		},
		{
			name: "examples an independent derivation always contradicts end in error at max_iterations, saying why they never stood",
			replies: func() map[string][]string {
				r := with("planning", demo["planning"][0])
				r["deriving"] = []string{strings.Replace(demo["deriving"][0], `"words": 7,`, `"words": 8,`, 1)}
				return r
			}(),
			vars:    []string{"max_iterations=2"},
			code:    exitPaused,
			out:     []string{"vetting → recovering  next[2]", "refining → recovering  [iteration >= max_iterations]", "recovering → error  next[3]", "paused in error after"},
			varWant: map[string]string{"error": "blueprint did not pass after 2 iteration(s) (max_iterations 2); the last diagnostics:\nthe examples never stood:\nexample 1 \"two lines, the second longer\" expects words 7, but an independent derivation from the target and the inputs gives 8: work it out again by hand"},
		},
		{
			name:    "a score that is not a number is asked again",
			replies: with("evaluating", `{"score": "high", "problems": [], "feedback": "good"}`, `{"score": 90, "problems": [], "feedback": "good"}`),
			code:    0,
			out:     []string{"the reply was invalid (it does not satisfy the schema: ", "probe_checking → promoting  [probes_ok]"},
			prompt:  [2]string{"evaluating", "Your reply was invalid: it does not satisfy the schema: "},
		},
		{
			name:    "a score that is never a number ends in error at max_iterations, its examples passing but nothing promoted",
			replies: with("evaluating", `{"score": "ninety", "problems": [], "feedback": "good"}`),
			vars:    []string{"max_iterations=2"},
			code:    exitPaused,
			out:     []string{"evaluating → recovering  on_error", "recovering → refining  [iteration < max_iterations && error_from != \"refining\"]", "refining → recovering  [iteration >= max_iterations]", "recovering → error  next[3]", "paused in error after"},
			varWant: map[string]string{"error": `implementation did not pass after 2 iteration(s) (max_iterations 2); no score was given; nothing was promoted; the last diagnostics:` + "\n" + `evaluating failed: the model's reply in state "evaluating" is still invalid after 2 repair(s): it does not satisfy the schema: validating /properties/score: type: "ninety" is a string, want an integer`, "examples_report": "examples: 4 of 4 passed"},
		},
		{
			name: "a passing score given with a problem listed is not promoted: the problem is the next refinement's feedback",
			replies: with("evaluating", `{"score": 95, "problems": ["the word count is wrong for hyphenated words"], "feedback": "Good work overall."}`,
				`{"score": 92, "problems": [], "feedback": "The counts are right."}`),
			code:   0,
			out:    []string{"evaluating → refining", "probe_checking → promoting  [probes_ok]", "completed in complete"},
			prompt: [2]string{"planning", "the scorer listed 1 problem(s): the word count is wrong for hyphenated words\nGood work overall."},
		},
		{
			name:    "a scorer that always lists a problem with a passing score ends in error at max_iterations, nothing promoted",
			replies: with("evaluating", `{"score": 95, "problems": ["the longest line is off by one"], "feedback": "Ship it."}`),
			vars:    []string{"max_iterations=2"},
			code:    exitPaused,
			out:     []string{"evaluating → refining", "refining → recovering  [iteration >= max_iterations]", "recovering → error  next[3]", "paused in error after"},
			varWant: map[string]string{"error": "implementation did not pass after 2 iteration(s) (max_iterations 2); the last score 95 came with 1 problem(s) the scorer listed; nothing was promoted; the last diagnostics:\nthe scorer listed 1 problem(s): the longest line is off by one\nShip it."},
			absent:  []string{"output/contractor/word_stats/word_stats.yaml"},
		},
		{
			name:    "a problem that says there is none (\"None\") is asked again, not taken as a defect that blocks every iteration",
			replies: with("evaluating", demo["evaluating"][0], `{"score": 92, "problems": ["None"], "feedback": "The counts are right."}`, demo["evaluating"][1]),
			code:    0,
			out:     []string{"evaluating → refining", "probe_checking → promoting  [probes_ok]", "completed in complete"},
			prompt:  [2]string{"evaluating", `Your reply was invalid: it does not satisfy the schema: validating /properties/problems: validating /properties/problems/items: not: an item says there is no problem ("None", "N/A"); when the skill has none, problems is the empty list []`},
		},
		{
			name:    "a scorer's passing draft before a final score that does not parse is asked again, never promoted on the draft",
			replies: with("evaluating", "Draft:\n{\"score\": 92, \"problems\": [], \"feedback\": \"Looks complete.\"}\nOn a closer look the report lacks the line number, so my final answer is:\n{'score': 62, 'problems': ['the report lacks the line number'], 'feedback': 'Report which line it is.'}", demo["evaluating"][0], demo["evaluating"][1]),
			code:    0,
			out:     []string{"evaluating → refining", "probe_checking → promoting  [probes_ok]", "completed in complete"},
			prompt:  [2]string{"evaluating", "Your reply was invalid: the reply holds a JSON object at line 4, column 1, after the one at line 2, column 1, that does not parse"},
		},
		{
			name:    "the scorer writes its findings first and is told that a defect written only there is lost",
			replies: with("evaluating", demo["evaluating"][1]),
			code:    0,
			out:     []string{"probe_checking → promoting  [probes_ok]"},
			prompt:  [2]string{"evaluating", "Only \"problems\" is read to decide: a defect written only in the feedback is lost, and the skill\nships with it. A skill with any problem listed is not accepted, whatever its score; leave \"problems\" empty\nonly when the skill is right. Style suggestions are not problems. Give the score last.\n\nAnswer with {\"feedback\": "},
		},
		{
			name: "a passing score whose feedback names a defect its empty problems list left out is read back and refined, never promoted on it",
			replies: func() map[string][]string {
				r := with("evaluating", demo["evaluating"][0], `{"feedback": "Excellent work; though the longest line's length is counted in bytes, not characters, the examples all pass.", "problems": [], "score": 96}`, demo["evaluating"][1])
				r["confirming"] = []string{`{"defects": ["the longest line's length is counted in bytes, not characters"]}`, `{"defects": []}`}
				return r
			}(),
			code:   0,
			out:    []string{"evaluating → refining", "evaluating → confirming  [is_satisfied]", "confirming → refining", "probe_checking → promoting  [probes_ok]", "completed in complete"},
			prompt: [2]string{"planning", "the scorer's feedback names 1 defect(s) its problems list left out: the longest line's length is counted in bytes, not characters\nExcellent work; though"},
		},
		{
			name: "the read-back sees the scorer's own feedback, and a defect it names every time ends in error at max_iterations, nothing promoted",
			replies: func() map[string][]string {
				r := with("evaluating", `{"feedback": "Excellent; though a file of one empty line gives longest_line 0, the examples all pass.", "problems": [], "score": 96}`)
				r["confirming"] = []string{`{"defects": ["a file of one empty line gives longest_line 0"]}`}
				return r
			}(),
			vars:    []string{"max_iterations=2"},
			code:    exitPaused,
			out:     []string{"evaluating → confirming  [is_satisfied]", "confirming → refining", "refining → recovering  [iteration >= max_iterations]", "recovering → error  next[3]", "paused in error after"},
			prompt:  [2]string{"confirming", "It gave the score 96 and listed no problem, but its\nfeedback, below, may still name a defect."},
			varWant: map[string]string{"error": "implementation did not pass after 2 iteration(s) (max_iterations 2); the last score 96 came with 1 defect(s) the scorer's feedback names but its problems list left out; nothing was promoted; the last diagnostics:\nthe scorer's feedback names 1 defect(s) its problems list left out: a file of one empty line gives longest_line 0\nExcellent; though"},
			absent:  []string{"output/contractor/word_stats/word_stats.yaml"},
		},
		{
			name:    "a score without its problems is asked again",
			replies: with("evaluating", `{"score": 95, "feedback": "The counts are wrong."}`, `{"score": 40, "problems": ["the counts are wrong"], "feedback": "The counts are wrong."}`, `{"score": 92, "problems": [], "feedback": "good"}`),
			code:    0,
			out:     []string{"evaluating → refining", "probe_checking → promoting  [probes_ok]"},
			prompt:  [2]string{"evaluating", "Your reply was invalid: it does not satisfy the schema: "},
		},
		{
			name: "a derivation that fails before the examples stood: only the plan that writes them again is told why, and the run completes",
			replies: func() map[string][]string {
				r := with("deriving", "I worked them out: two lines gives 7 words {", "still thinking", "no JSON here", demo["deriving"][0])
				r["planning"] = append([]string{demo["planning"][0]}, demo["planning"]...) // the first plan, written again
				return r
			}(),
			code:   0,
			out:    []string{"deriving → recovering  on_error", `recovering → refining  [iteration < max_iterations && error_from != "refining"]`, "completed in complete"},
			prompt: [2]string{"planning", `deriving failed: the model's reply in state "deriving" is still invalid after 2 repair(s)`},
			notIn:  [2]string{"executing", "still invalid after 2 repair(s)"},
		},
		{
			name: "a write outside output/contractor is blocked",
			replies: func() map[string][]string {
				r := skipFirstRefinement(with("executing", blueprintV2, evil))
				r["planning"][1] = `{"skill": "word_stats", "steps": [{"title": "the script", "files": ["../../../scripts/evil.py"], "instruction": "write it"}], "examples": []}`
				return r
			}(),
			vars:   []string{"max_iterations=1", "max_errors=2"},
			code:   exitPaused,
			out:    []string{"[SECURITY BLOCKED] outside-output: '../../../scripts/evil.py' is not a path inside output/contractor/word_stats.attempt/", "correcting → recovering  on_error", "recovering → executing  [(error_from == \"executing\" || error_from == \"correcting\") && step_error_count + 1 < max_errors]", "recovering → reviewing  [error_from == \"correcting\"]", "paused in error after"},
			prompt: [2]string{"reviewing", "The step failed 2 time(s); the last problem: script scripts/contractor/write_skill.py: [SECURITY BLOCKED] outside-output: '../../../scripts/evil.py' is not a path inside output/contractor/word_stats.attempt/"},
			absent: []string{"scripts/evil.py", "output/evil.py", "evil.py"},
		},
		{
			name: "a step's reply that also gives another step's files is asked again for its own, and nothing of it is written",
			replies: func() map[string][]string {
				var script, docs map[string]map[string]string
				if err := json.Unmarshal([]byte(exec[2]), &script); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal([]byte(exec[3]), &docs); err != nil {
					t.Fatal(err)
				}
				docs["files"]["scripts/word_stats.py"] = "# rewritten by the docs step\n" + script["files"]["scripts/word_stats.py"]
				return with("executing", exec[0], exec[1], exec[2], files(docs["files"]), exec[3], exec[4])
			}(),
			code:   0,
			out:    []string{`parsing → executing  [repair_attempts < max_repairs]`, "probe_checking → promoting  [probes_ok]", "completed in complete"},
			prompt: [2]string{"executing", "Your last answer for this step was refused: this step writes only README.md, demo.yaml, reference/sample.txt, skills.md (the plan's files for it); the reply also gives scripts/word_stats.py: leave them out (each file is written by the step the plan gives it to), and answer with this step's files only"},
			notIn:  [2]string{"evaluating", "rewritten by the docs step"},
		},
		{
			name:    "a script importing subprocess is refused by the check and refined",
			replies: with("executing", exec[0], exec[1], subprocessScript, exec[3], exec[4]),
			code:    0,
			out:     []string{"validating → refining", "probe_checking → promoting  [probes_ok]"},
			prompt:  [2]string{"planning", "imports subprocess: subprocess runs other programs"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.replies["reviewing"] == nil {
				tt.replies["reviewing"] = []string{`{"decision": "replan", "reason": "the step keeps failing"}`}
			}
			m := newContractorModel(t, tt.replies)
			res, root := runContractor(t, m, tt.vars...)
			if res.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", res.code, tt.code, res.all(), contractorEvidence(root))
			}
			for _, want := range tt.out {
				if !strings.Contains(res.all(), want) {
					t.Errorf("the output lacks %q", want)
				}
			}
			if tt.prompt[0] != "" && !slicesContainSubstring(m.promptsOf(tt.prompt[0]), tt.prompt[1]) {
				t.Errorf("no %s prompt holds %q; they were:\n%s", tt.prompt[0], tt.prompt[1], strings.Join(m.promptsOf(tt.prompt[0]), "\n---\n"))
			}
			for name, want := range tt.varWant {
				if got := fmt.Sprint(runVar(t, root, name)); !strings.Contains(got, want) {
					t.Errorf("%s = %q, want it to hold %q", name, got, want)
				}
			}
			if tt.notIn[0] != "" && slicesContainSubstring(m.promptsOf(tt.notIn[0]), tt.notIn[1]) {
				t.Errorf("a %s prompt holds %q", tt.notIn[0], tt.notIn[1])
			}
			for _, f := range tt.absent {
				if _, err := os.Stat(filepath.Join(root, f)); err == nil {
					t.Errorf("%s was written", f)
				}
			}
			if t.Failed() {
				t.Logf("output:\n%s\n%s", res.all(), contractorEvidence(root))
			}
		})
	}
}

func slicesContainSubstring(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
