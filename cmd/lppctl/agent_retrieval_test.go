package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/internal/embedtest"
	"github.com/lppctl/lppctl/skills"
)

// The agent ranks the library's skills for its prompts as `lppctl skills
// search` does, with embeddings served by an OpenAI-compatible server on
// loopback (the real langchaingo client): the chat completions go to the
// fake model, /embeddings to embedtest.

// retrievalSkills are the source system's check ("I need to find a mug"
// over a "search" and a "heat" skill) and two more.
var retrievalSkills = []skills.Skill{
	{Name: "heat_in_microwave", Principle: "Put the object in the microwave and turn it on until it is warm.", WhenToApply: "An object must be heated or warmed up."},
	{Name: "search_receptacles", Principle: "Look in every likely receptacle (cabinets, shelves, countertops) one by one until the object turns up.", WhenToApply: "You must locate an object whose place is unknown."},
	{Name: "retry_flaky_network_calls", Principle: "Retry transient HTTP errors with exponential backoff.", WhenToApply: "A network call fails with 429 or 5xx."},
	{Name: "verify_output_paths", Principle: "Check that every output file exists before reporting success.", WhenToApply: "At the end of a step that writes files."},
}

// withEmbeddings serves /embeddings (and Ollama's /api/embed) from an
// embedtest server on the fake model's address, and returns that server.
func withEmbeddings(t *testing.T, f *fakeLLM) *embedtest.Server {
	t.Helper()
	emb := embedtest.NewServer(t)
	f.srv.Close()
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/embeddings") || r.URL.Path == "/api/embed" {
			emb.ServeHTTP(w, r)
			return
		}
		f.serve(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return emb
}

// mugScript plans the given steps and passes each at once.
func mugScript(instructions ...string) string {
	s := "replies:\n" + planner(instructions...)
	for i := range instructions {
		s += reply("optimizer", i+1, text("[ATTEMPTS_COMPLETE] done")) + reply("evaluator", i+1, pass(`"DONE": "yes"`))
	}
	return s
}

// injected returns the skill names of the "Relevant Skills" section of a prompt, in order.
func injected(prompt string) []string {
	var out []string
	for _, line := range strings.Split(prompt, "\n") {
		if _, rest, ok := strings.Cut(line, ". **"); ok && len(line) > 0 && line[0] >= '1' && line[0] <= '9' {
			out = append(out, strings.TrimSuffix(rest, "**"))
		}
	}
	return out
}

// searchNames runs `lppctl skills search --json` and returns the names it found.
func searchNames(t *testing.T, root, query string, k string) []string {
	t.Helper()
	code, stdout, stderr := lppctl(t, "", "skills", "search", "--library", libraryFile(root), "--embeddings", "openai:test-embed", "-k", k, "--json", "--", query)
	require.Equal(t, 0, code, stderr)
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var h skills.Hit
		require.NoError(t, json.Unmarshal([]byte(line), &h))
		out = append(out, h.Name)
	}
	return out
}

func TestAgentInjectsTheSkillsThatSkillsSearchFinds(t *testing.T) {
	tests := []struct {
		name        string
		instruction string
		k           string
		want        []string
	}{
		{name: "the source's mug check, k=1", instruction: "I need to find a mug", k: "1", want: []string{"search_receptacles"}},
		{name: "top 3, with no word in common", instruction: "warm the cup once located", k: "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := newProject(t, "hello_skill")
			writeLibrary(t, root, retrievalSkills...)
			f := newFakeLLM(t, mugScript(tt.instruction))
			emb := withEmbeddings(t, f)
			res := runAgent(t, root, f, "--yes", "--embeddings", "openai:test-embed", "--var", "relevant_skills="+tt.k)
			require.Equal(t, 0, res.code, res.all())
			got := injected(f.requests("optimizer", 1)[0].Messages[1].Content)
			// the optimizer's query is the plan's goal and the step's instruction
			want := searchNames(t, root, "test goal\n"+tt.instruction, tt.k)
			assert.Equal(t, want, got, "the optimizer's skills are those of skills search")
			if tt.want != nil {
				assert.Equal(t, tt.want, got)
			}
			assert.Len(t, got, len(want))
			assert.Contains(t, res.out, "prepare_step_context: relevant skills from .lppctl/skills.json (embeddings openai:test-embed): "+strings.Join(got, ", "))
			assert.Equal(t, "test-embed", emb.Models()[0])
		})
	}
}

func TestAgentEmbedsUnchangedSkillsOnce(t *testing.T) {
	root := newProject(t, "hello_skill")
	writeLibrary(t, root, retrievalSkills...)
	run := func() (requests, inputs int) {
		f := newFakeLLM(t, mugScript("I need to find a mug", "heat it"))
		emb := withEmbeddings(t, f)
		res := runAgent(t, root, f, "--yes", "--embeddings", "openai:test-embed")
		require.Equal(t, 0, res.code, res.all())
		return emb.Requests(), emb.Inputs()
	}
	// first run: the 4 skills in one batch, then one query per prompt (plan, step 1, step 2)
	requests, inputs := run()
	assert.Equal(t, 1+3, requests)
	assert.Equal(t, 4+3, inputs)
	// the usage counts changed, the texts did not: the queries only
	requests, inputs = run()
	assert.Equal(t, 3, requests)
	assert.Equal(t, 3, inputs)
	// one skill's text changed: that skill only
	lib, err := skills.Open(libraryFile(root))
	require.NoError(t, err)
	p := "Check that every output file exists and is not empty."
	_, err = lib.Update("verify_output_paths", skills.Update{Principle: &p})
	require.NoError(t, err)
	requests, inputs = run()
	assert.Equal(t, 1+3, requests)
	assert.Equal(t, 1+3, inputs)
}

func TestAgentFallsBackToBM25WhenEmbeddingsFail(t *testing.T) {
	root := newProject(t, "hello_skill")
	writeLibrary(t, root, retrievalSkills...)
	f := newFakeLLM(t, mugScript("I need to find a mug", "retry the network call", "check the output file"))
	emb := withEmbeddings(t, f)
	emb.SetDown(true)
	res := runAgent(t, root, f, "--yes", "--embeddings", "openai:test-embed")
	require.Equal(t, 0, res.code, "the outage does not fail the run\n"+res.all())
	assert.Equal(t, 1, strings.Count(res.all(), "relevant skills ranked with BM25 for the rest of the run: cannot search skills: cannot embed skills: "), res.all())
	asked := emb.Requests()
	assert.Positive(t, asked)
	// BM25 from then on: the steps get the skills that share words with them, none for the first
	assert.Empty(t, injected(f.requests("optimizer", 1)[0].Messages[1].Content))
	assert.Equal(t, []string{"retry_flaky_network_calls"}, injected(f.requests("optimizer", 2)[0].Messages[1].Content))
	assert.Equal(t, []string{"verify_output_paths"}, injected(f.requests("optimizer", 3)[0].Messages[1].Content))
	assert.Contains(t, res.out, "prepare_step_context: relevant skills from .lppctl/skills.json: retry_flaky_network_calls")
}

func TestAgentRefusesAnUnknownEmbeddingsProvider(t *testing.T) {
	root := newProject(t, "hello_skill")
	f := newFakeLLM(t, mugScript("x"))
	res := runAgent(t, root, f, "--yes", "--embeddings", "cohere")
	assert.Equal(t, exitUsage, res.code)
	assert.Contains(t, res.err, `cannot configure embeddings: unknown provider "cohere" (want openai[:model], ollama[:model] or none): invalid; give --embeddings openai[:model], ollama[:model] or none`)
}

func TestSkillsSearchFallsBackToBM25WhenEmbeddingsFail(t *testing.T) {
	emb := embedtest.NewServer(t)
	emb.SetDown(true)
	t.Setenv("OPENAI_API_BASE", emb.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("LPPCTL_LLM_RETRIES", "2")
	t.Setenv("LPPCTL_LLM_BACKOFF", "1ms")
	root := t.TempDir()
	writeLibrary(t, root, retrievalSkills...)
	code, stdout, stderr := lppctl(t, "", "skills", "search", "--library", libraryFile(root), "--embeddings", "openai:test-embed", "-k", "3", "--", "retry the network call")
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "1. retry_flaky_network_calls (score "), stdout)
	assert.Equal(t, "lppctl: warning: ranking with BM25: cannot search skills: cannot embed skills: the embeddings server at "+emb.URL+"/v1/embeddings failed 2 attempts, the last with HTTP 503 (server error): embeddings are down\n", stderr)
	assert.Equal(t, 2, emb.Requests(), "retried once")
}

// A transient failure of the embeddings server (a 503, a 429) is retried
// as a model call is, in OpenAI's wire format and Ollama's: the run ranks
// its skills with embeddings as skills search does, with no warning.
func TestAgentRetriesATransientEmbeddingsFailure(t *testing.T) {
	for _, provider := range []string{"openai", "ollama"} {
		t.Run(provider, func(t *testing.T) {
			root := newProject(t, "hello_skill")
			writeLibrary(t, root, retrievalSkills...)
			f := newFakeLLM(t, mugScript("I need to find a mug"))
			emb := withEmbeddings(t, f)
			t.Setenv("OLLAMA_HOST", f.srv.URL)
			emb.FailNext(1, http.StatusServiceUnavailable, "")
			emb.FailNext(1, http.StatusTooManyRequests, "0")
			res := runAgent(t, root, f, "--yes", "--embeddings", provider+":test-embed", "--var", "relevant_skills=1")
			require.Equal(t, 0, res.code, res.all())
			assert.NotContains(t, res.all(), "BM25")
			assert.Equal(t, []string{"search_receptacles"}, injected(f.requests("optimizer", 1)[0].Messages[1].Content))
			assert.Contains(t, res.out, "prepare_step_context: relevant skills from .lppctl/skills.json (embeddings "+provider+":test-embed): search_receptacles")
			assert.Equal(t, "test-embed", emb.Models()[0])
		})
	}
}
