package actions

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/lppctl/lppctl/internal/llmenv"

	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/internal/promptlog"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/skills"
	"gopkg.in/yaml.v3"
)

// Deps is what every action needs from outside (the general actions, and
// the Skills Agent's through agent.Deps): configuration from the command
// line and the run's I/O. Nothing in it is used at registration, so
// `lppctl validate` and `lppctl actions` work without any provider; the model
// and the gateway are built at their first use.
type Deps struct {
	LLM       string // --llm value ("" = from LPPCTL_LLM or the environment)
	LLMSource string // where LLM came from, for messages ("--llm", "config file")

	Root          string   // project root the gateway confines tools to (default ".")
	SkillDir      string   // the skill's folder (default skills/hello_skill)
	SkillFile     string   // the skill's markdown file when it is not SkillDir/skills.md (--skill task.md); the agent reads and learns into it
	Policy        string   // gateway policy (default <root>/config/tools_config.yaml)
	DefaultPolicy string   // the policy (YAML) when Policy is "" and the root has none: BlueprintPolicy for a blueprint's run
	ClaudeMD      string   // L1 global context (default <root>/claude.md)
	SkillsLibrary string   // skill library JSON the prompts draw on and skill.teacher updates (default <root>/.lppctl/skills.json)
	Embeddings    string   // ranks the library's skills for the prompts: openai[:model], ollama[:model]; "" or none: BM25
	SpecDir       string   // prompt templates are looked up here first, then in Root
	Protected     []string // more paths no tool may write (absolute or root-relative; those outside Root are ignored): the spec, its templates, the run directory
	// Pinned are prompt templates by absolute path, read from here rather
	// than the disk (a Temporal run's, as they were when it started).
	Pinned map[string][]byte

	Yes         bool      // approve the plan without asking
	Feedback    string    // final human feedback given up front (non-interactive runs)
	Interactive bool      // a person is at In/Out
	Quiet       bool      // -q: show the person only what they are asked about (no plan table when --yes approves it)
	OutUnseen   bool      // Out reaches no person (a Temporal worker's output): the plan --yes approves goes into the approval's note
	In          io.Reader // the person's terminal
	Out         io.Writer // messages for the person (the run's output)
	Editor      string    // editor for plan editing (default $VISUAL, $EDITOR, vi)

	RunID  string    // run id for skills.md entry ids (default: Call.RunID, else a random one)
	RunDir string    // the run's directory: spec.run journals its child machines below it ("" = children are not journaled)
	Audit  io.Writer // gateway audit log (JSON lines)
	LLMLog io.Writer // LLM call log (JSON lines)
	// Prompts stores the messages of the model calls (default: prompts.jsonl
	// next to LLMLog when it is a file; nil = not stored).
	Prompts *promptlog.Log

	Getenv     func(string) string // default os.Getenv
	Now        func() time.Time    // default: $LPPCTL_NOW (RFC 3339) when set, else time.Now
	HTTPClient *http.Client        // providers' HTTP client (tests)
	Retry      llm.RetryPolicy     // transient-error retries of providers
	Model      llm.Client          // a ready model (tests); skips provider resolution
	Gateway    *gateway.Gateway    // a ready gateway (tests)
	// GatewayOptions are more options of the gateway (the Temporal
	// worker's record of tool calls, gateway.WithEffects).
	GatewayOptions []gateway.Option
	// Unconfined is the person's opt-out (--unconfined): where the kernel
	// cannot confine model-written code, it runs unconfined instead of
	// being refused.
	Unconfined bool

	mu       sync.Mutex
	model    llm.Client
	modelErr error
	gw       *gateway.Gateway
	gwErr    error
	// hide is the policy whose hidden_paths the files the spec names are
	// checked against (hidePolicy), once hideLoaded; nil: the defaults.
	hide       *gateway.Policy
	hideLoaded bool
	reader     *bufio.Reader
	pending    chan lineRead // a read of the terminal still going on (see readLine)
	localID    string
	logMu      sync.Mutex
	announced  bool
	demo       bool // the model is the skill's demo script, for want of a configured one
	// templateDir is the folder of the first prompt template a general
	// action rendered, where demoFile looks for the spec's demo.yaml.
	templateDir string

	registry *machine.Registry // the registry the actions are in (Register), for spec.validate and spec.run
	chain    []string          // spec.run: the spec files of the parent runs, outermost first (empty at the top)
	sets     []ActionSet       // the action sets of the registry (Register), a child run's too
}

// Env reads the environment variable k through Getenv (default os.Getenv).
func (d *Deps) Env(k string) string {
	if d.Getenv != nil {
		return d.Getenv(k)
	}
	return os.Getenv(k)
}

// RootDir is the project root (Root, default ".").
func (d *Deps) RootDir() string {
	if d.Root == "" {
		return "."
	}
	return d.Root
}

// RootPath resolves p (relative paths against the root).
func (d *Deps) RootPath(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(d.RootDir(), p)
}

// SkillFolder is the skill's folder: SkillDir (default skills/hello_skill),
// as given when it exists, else relative to the root.
func (d *Deps) SkillFolder() string {
	if d.SkillDir == "" {
		return d.RootPath(filepath.Join("skills", "hello_skill"))
	}
	if filepath.IsAbs(d.SkillDir) {
		return d.SkillDir
	}
	if _, err := os.Stat(d.SkillDir); err == nil {
		return d.SkillDir
	}
	return d.RootPath(d.SkillDir)
}

// SkillsMD is the skill's markdown file: SkillFile, else SkillDir/skills.md.
func (d *Deps) SkillsMD() string {
	if d.SkillFile == "" {
		return filepath.Join(d.SkillFolder(), "skills.md")
	}
	if filepath.IsAbs(d.SkillFile) {
		return d.SkillFile
	}
	if _, err := os.Stat(d.SkillFile); err == nil {
		return d.SkillFile
	}
	return d.RootPath(d.SkillFile)
}

// OpenSkill reads the skill's markdown file (see SkillsMD).
func (d *Deps) OpenSkill() (*skills.SkillDoc, error) {
	if d.SkillFile == "" {
		return skills.OpenSkill(d.SkillFolder())
	}
	return skills.OpenSkillFile(d.SkillsMD())
}

// Output is where messages for the person go (Out; none when nil).
func (d *Deps) Output() io.Writer {
	if d.Out == nil {
		return io.Discard
	}
	return d.Out
}

// NowUTC is the clock for skills.md timestamps: $LPPCTL_NOW (RFC 3339) when set
// (a testing aid for reproducible files), else the wall clock.
func (d *Deps) NowUTC() time.Time {
	if d.Now != nil {
		return d.Now().UTC()
	}
	if t, ok, err := ReadNowEnv(d.Env); ok && err == nil {
		return t.UTC()
	}
	return time.Now().UTC()
}

// ReadNowEnv reads $LPPCTL_NOW, the clock of skills.md timestamps (a
// testing aid): ok false when unset or blank; a value that is not an RFC
// 3339 time is an error naming it (run and resume refuse it before they
// start: it was ignored without a word, and the wall clock used).
func ReadNowEnv(getenv func(string) string) (t time.Time, ok bool, err error) {
	v := strings.TrimSpace(getenv("LPPCTL_NOW"))
	if v == "" {
		return time.Time{}, false, nil
	}
	if t, err = time.Parse(time.RFC3339, v); err != nil {
		return time.Time{}, true, fmt.Errorf("LPPCTL_NOW: cannot read %q: write a time in RFC 3339, e.g. 2025-01-02T03:04:05Z (it fixes the clock of skills.md timestamps; unset it for the real one)", v)
	}
	return t, true, nil
}

// EntryID is the idempotency key of a skills.md entry written by the action
// of journal record seq (Call.Seq+1): a re-run of that action after a crash
// writes the same id, which the skills store ignores.
func (d *Deps) EntryID(runID string, seq int) string {
	return fmt.Sprintf("%s/%d", d.ResolveRunID(runID), seq)
}

// ResolveRunID is the id entry ids start with: runID (Call.RunID), else Deps.RunID,
// else a random local-... one for the process.
func (d *Deps) ResolveRunID(runID string) string {
	if runID == "" {
		runID = d.RunID
	}
	if runID == "" {
		d.mu.Lock()
		if d.localID == "" {
			var b [6]byte
			_, _ = rand.Read(b[:])
			d.localID = "local-" + time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
		}
		runID = d.localID
		d.mu.Unlock()
	}
	return runID
}

// demoFallback reports whether the model is the skill's demo script, used
// because no LLM is configured.
func (d *Deps) demoFallback() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.demo && d.Model == nil
}

// demoFile is the script of scripted replies used when no LLM is
// configured: the demo.yaml next to the spec (a general agent's, whose
// replies name its states) when there is one, else the one next to the
// prompt templates of its first llm.generate call or in their parent folder
// (specs/x.yaml with specs/x/prompts/*.md and specs/x/demo.yaml), else the
// skill's. Called with d.mu held.
func (d *Deps) demoFile() string {
	var dirs []string
	if d.SpecDir != "" {
		dirs = append(dirs, d.SpecDir)
	}
	if d.templateDir != "" {
		dirs = append(dirs, d.templateDir, filepath.Dir(d.templateDir))
	}
	for _, dir := range dirs {
		p := filepath.Join(dir, "demo.yaml")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return filepath.Join(d.SkillFolder(), "demo.yaml")
}

// Client returns the model, resolving the provider at first use.
func (d *Deps) Client() (llm.Client, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.Model != nil {
		return d.Model, nil
	}
	if d.model != nil || d.modelErr != nil {
		return d.model, d.modelErr
	}
	d.model, d.modelErr = d.resolveModel()
	return d.model, d.modelErr
}

func (d *Deps) resolveModel() (llm.Client, error) {
	spec, src := d.LLM, d.LLMSource
	if src == "" {
		src = "--llm"
	}
	if spec == "" && d.Env("LPPCTL_LLM") == "" {
		var err error
		if spec, src, err = d.configLLM(); err != nil {
			return nil, err
		}
	}
	ch, err := llm.Choose(spec, src, d.Env)
	if errors.Is(err, llm.ErrNoProvider) {
		demo := d.demoFile()
		if _, serr := os.Stat(demo); serr != nil {
			return nil, fmt.Errorf("cannot start the agent: %w", err)
		}
		fmt.Fprintf(d.Output(), "*** no LLM configured: replaying the scripted demo replies from %s; set OPENAI_API_KEY or --llm to use a real model ***\n", demo)
		ch = llm.Choice{Provider: "script", Model: demo, Source: "demo fallback"}
		d.announced, d.demo = true, true
	} else if err != nil {
		return nil, err
	}
	if m := llm.ServerModel(context.Background(), ch, d.Env, d.HTTPClient); m != "" {
		ch.Model = m
		fmt.Fprintf(d.Output(), "*** %s: no model named (--llm %s:MODEL or %s); using %q, the model the server lists ***\n", ch.Provider, ch.Provider, map[string]string{"openai": "OPENAI_MODEL", "ollama": "OLLAMA_MODEL"}[ch.Provider], m)
	}
	if ch.Provider == "script" && !d.announced {
		fmt.Fprintf(d.Output(), "*** LLM replies are SCRIPTED: replaying %s (no model is called; tools run for real) ***\n", ch.Model)
		d.announced = true
	}
	return llm.New(ch, llm.Options{Getenv: d.Env, HTTPClient: d.HTTPClient, Retry: d.RetryPolicy()})
}

// RetryPolicy is Deps.Retry, with $LPPCTL_LLM_RETRIES (attempts, first
// included), $LPPCTL_LLM_BACKOFF (first wait, e.g. 500ms) and
// $LPPCTL_LLM_TIMEOUT (per attempt: 30s, or 30 for seconds) applied. Each retry is
// announced on the run's output. A value that cannot be read is left out
// here: CheckRetryEnv refuses it before a run starts.
func (d *Deps) RetryPolicy() llm.RetryPolicy {
	p := d.Retry
	env, _ := ReadRetryEnv(d.Env)
	if env.Timeout > 0 {
		p.Timeout = env.Timeout
	}
	if p.OnRetry == nil {
		p.OnRetry = func(what string, attempt, of int, wait time.Duration) {
			r := 100 * time.Millisecond
			if wait < time.Second {
				r = time.Millisecond
			}
			fmt.Fprintf(d.Output(), "  llm: %s; attempt %d of %d in %s\n", what, attempt, of, wait.Round(r))
		}
	}
	if env.Attempts > 0 {
		p.Attempts = env.Attempts
	}
	if b := env.Backoff; b > 0 {
		p.Base = b
		if p.Max == 0 || p.Max < b {
			p.Max = 20 * b
		}
	}
	return p
}

// RetryEnv is what $LPPCTL_LLM_RETRIES, $LPPCTL_LLM_BACKOFF and
// $LPPCTL_LLM_TIMEOUT say; zero where unset.
type RetryEnv = llmenv.RetryEnv

// ReadRetryEnv reads the retry bounds from the environment (llmenv.Read).
func ReadRetryEnv(getenv func(string) string) (RetryEnv, error) { return llmenv.Read(getenv) }

// ConfigFile is lppctl's own defaults file, relative to the project root.
// The agent reads its "llm" key (same syntax as --llm); other keys are
// ignored here.
const ConfigFile = "config/lppctl.yaml"

// configLLM returns the llm key of the config file, if there is one.
func (d *Deps) configLLM() (string, string, error) { return ConfigLLM(d.RootDir()) }

// ConfigLLM returns the llm key of root's config file (ConfigFile) and
// the file's name as the key's source; "" when there is no file or no key.
// A file that cannot be read or decoded is an error.
func ConfigLLM(root string) (string, string, error) {
	if root == "" {
		root = "."
	}
	path := filepath.Join(root, filepath.FromSlash(ConfigFile))
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("cannot read %s: %w", path, err)
	}
	var cfg struct {
		LLM string `yaml:"llm"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		return "", "", fmt.Errorf("cannot read %s: %w", path, err)
	}
	return strings.TrimSpace(cfg.LLM), ConfigFile, nil
}

// loadPolicy loads the run's gateway policy: Policy, else
// <root>/config/tools_config.yaml, else DefaultPolicy when that file does
// not exist and one is given (a blueprint's run).
func (d *Deps) loadPolicy() (*gateway.Policy, error) {
	policy := d.Policy
	if policy == "" {
		policy = filepath.Join(d.RootDir(), "config", "tools_config.yaml")
	}
	if _, statErr := os.Stat(policy); d.Policy == "" && d.DefaultPolicy != "" && errors.Is(statErr, fs.ErrNotExist) {
		return gateway.ParsePolicy(strings.NewReader(d.DefaultPolicy), blueprintPolicyName)
	}
	return gateway.LoadPolicy(policy)
}

// OpenGateway returns the tool gateway, opening it at first use.
func (d *Deps) OpenGateway() (*gateway.Gateway, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.Gateway != nil {
		return d.Gateway, nil
	}
	if d.gw != nil || d.gwErr != nil {
		return d.gw, d.gwErr
	}
	p, err := d.loadPolicy()
	if err != nil {
		d.gwErr = fmt.Errorf("cannot start the tool gateway: %w", err)
		return nil, d.gwErr
	}
	var opts []gateway.Option
	if d.Audit != nil {
		opts = append(opts, gateway.WithAudit(d.Audit))
	}
	opts = append(opts, gateway.WithProtected(".lppctl"), gateway.WithObserver(traceToolCall))
	opts = append(opts, gateway.WithProtected(d.protectedInRoot()...))
	opts = append(opts, d.GatewayOptions...)
	if d.Unconfined {
		opts = append(opts, gateway.WithUnconfined())
	}
	d.gw, d.gwErr = gateway.New(d.RootDir(), p, opts...)
	return d.gw, d.gwErr
}

// protectedInRoot returns d.Protected as root-relative slash paths, leaving
// out those outside the root and the root itself.
func (d *Deps) protectedInRoot() []string {
	root, err := filepath.Abs(d.RootDir())
	if err != nil {
		return nil
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	var out []string
	for _, p := range d.Protected {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(root, p)
		}
		if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
			abs = filepath.Join(dir, filepath.Base(abs)) // the spec's folder may be reached through a link
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == "." || !filepath.IsLocal(rel) {
			continue
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// Close releases the gateway opened by the actions.
func (d *Deps) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.gw != nil {
		err := d.gw.Close()
		d.gw = nil
		return err
	}
	return nil
}

func (d *Deps) logCall(rec llm.CallRecord) {
	if d.LLMLog == nil {
		return
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	d.logMu.Lock()
	defer d.logMu.Unlock()
	_, _ = d.LLMLog.Write(append(b, '\n'))
}

func (d *Deps) lineReader() *bufio.Reader {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.reader == nil && d.In != nil {
		d.reader = bufio.NewReader(d.In)
	}
	return d.reader
}
