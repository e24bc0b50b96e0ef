package llm

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"
)

// Default models, used when neither --llm provider:model nor the provider's
// model variable names one.
const (
	DefaultOpenAIModel    = "gpt-4o-mini"
	DefaultAnthropicModel = "claude-sonnet-4-20250514"
	DefaultOllamaModel    = "llama3.1"
	DefaultOllamaHost     = "http://127.0.0.1:11434"
)

// ErrNoProvider means no LLM is configured at all.
var ErrNoProvider = errors.New("no LLM configured")

// Help lists the ways to configure a model; it ends every "no provider" error.
const Help = `choose one with --llm openai[:MODEL] | anthropic[:MODEL] | ollama[:MODEL] | script:FILE, ` +
	`or set LPPCTL_LLM to one of those, or set OPENAI_API_KEY (and OPENAI_API_BASE for any OpenAI-compatible server, OPENAI_MODEL), ` +
	`ANTHROPIC_API_KEY (ANTHROPIC_MODEL) or OLLAMA_HOST (OLLAMA_MODEL)`

// Options configure Resolve.
type Options struct {
	Getenv     func(string) string // default os.Getenv
	HTTPClient *http.Client        // default: a client that records statuses for retries
	Retry      RetryPolicy
}

// Choice is the provider a spec string names.
type Choice struct {
	Provider string // openai, anthropic, ollama, script
	Model    string // model name, or the script file
	Source   string // where the choice came from: "--llm", "LPPCTL_LLM", "OPENAI_API_KEY", ...
}

// Choose picks the provider: the explicit spec (from --llm or the config
// file) first, then LPPCTL_LLM, then the first provider whose environment
// variables are set (OPENAI_API_KEY or OPENAI_API_BASE, ANTHROPIC_API_KEY,
// OLLAMA_HOST). It returns an error wrapping ErrNoProvider when none is.
func Choose(spec, source string, getenv func(string) string) (Choice, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if spec == "" {
		if v := getenv("LPPCTL_LLM"); v != "" {
			spec, source = v, "LPPCTL_LLM"
		}
	}
	if spec != "" {
		return parseSpec(spec, source)
	}
	switch {
	case getenv("OPENAI_API_KEY") != "":
		return Choice{Provider: "openai", Source: "OPENAI_API_KEY"}, nil
	case getenv("OPENAI_API_BASE") != "":
		return Choice{Provider: "openai", Source: "OPENAI_API_BASE"}, nil
	case getenv("ANTHROPIC_API_KEY") != "":
		return Choice{Provider: "anthropic", Source: "ANTHROPIC_API_KEY"}, nil
	case getenv("OLLAMA_HOST") != "":
		return Choice{Provider: "ollama", Source: "OLLAMA_HOST"}, nil
	}
	return Choice{}, fmt.Errorf("%w: %s", ErrNoProvider, Help)
}

func parseSpec(spec, source string) (Choice, error) {
	p, rest, _ := strings.Cut(strings.TrimSpace(spec), ":")
	p = strings.ToLower(p)
	switch p {
	case "openai", "anthropic", "ollama":
		return Choice{Provider: p, Model: rest, Source: source}, nil
	case "script":
		if rest == "" {
			return Choice{}, fmt.Errorf("cannot use LLM %q (from %s): script: needs a file, e.g. script:skills/hello_skill/demo.yaml", spec, source)
		}
		return Choice{Provider: p, Model: rest, Source: source}, nil
	}
	return Choice{}, fmt.Errorf("cannot use LLM %q (from %s): unknown provider %q; %s", spec, source, p, Help)
}

// New builds the client for a choice.
func New(ch Choice, o Options) (Client, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = newHTTPClient()
	} else if _, ok := hc.Transport.(statusTransport); !ok {
		base := hc.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		cp := *hc
		cp.Transport = statusTransport{base: base}
		hc = &cp
	}
	model := ch.Model
	switch ch.Provider {
	case "script":
		return LoadScript(ch.Model)
	case "openai":
		if model == "" {
			model = firstSet(getenv("OPENAI_MODEL"), DefaultOpenAIModel)
		}
		key, base := getenv("OPENAI_API_KEY"), getenv("OPENAI_API_BASE")
		if key == "" && base == "" {
			return nil, fmt.Errorf("cannot use openai: OPENAI_API_KEY is not set (set it, or OPENAI_API_BASE for a local OpenAI-compatible server); %s", Help)
		}
		if key == "" {
			key = "none" // local OpenAI-compatible servers need no key, langchaingo needs one
		}
		opts := []openai.Option{openai.WithToken(key), openai.WithModel(model), openai.WithHTTPClient(hc)}
		if base != "" {
			opts = append(opts, openai.WithBaseURL(base))
		}
		m, err := openai.New(opts...)
		if err != nil {
			return nil, fmt.Errorf("cannot use openai: %w", err)
		}
		return &lcClient{model: m, provider: "openai", name: model, retry: o.Retry}, nil
	case "anthropic":
		if model == "" {
			model = firstSet(getenv("ANTHROPIC_MODEL"), DefaultAnthropicModel)
		}
		key := getenv("ANTHROPIC_API_KEY")
		if key == "" {
			return nil, fmt.Errorf("cannot use anthropic: ANTHROPIC_API_KEY is not set; %s", Help)
		}
		opts := []anthropic.Option{anthropic.WithToken(key), anthropic.WithModel(model), anthropic.WithHTTPClient(hc)}
		if base := getenv("ANTHROPIC_BASE_URL"); base != "" {
			opts = append(opts, anthropic.WithBaseURL(base))
		}
		m, err := anthropic.New(opts...)
		if err != nil {
			return nil, fmt.Errorf("cannot use anthropic: %w", err)
		}
		return &lcClient{model: m, provider: "anthropic", name: model, retry: o.Retry, oneToolCallPerMessage: true}, nil
	case "ollama":
		if model == "" {
			model = firstSet(getenv("OLLAMA_MODEL"), DefaultOllamaModel)
		}
		host := firstSet(getenv("OLLAMA_HOST"), DefaultOllamaHost)
		if !strings.Contains(host, "://") {
			host = "http://" + host
		}
		// Ollama serves an OpenAI-compatible API under /v1 with native tool
		// calling; langchaingo v0.1.14's own ollama adapter drops tool calls,
		// so the OpenAI client is used against it.
		m, err := openai.New(openai.WithToken("ollama"), openai.WithModel(model), openai.WithBaseURL(strings.TrimRight(host, "/")+"/v1"), openai.WithHTTPClient(hc))
		if err != nil {
			return nil, fmt.Errorf("cannot use ollama: %w", err)
		}
		return &lcClient{model: m, provider: "ollama", name: model, retry: o.Retry}, nil
	}
	return nil, fmt.Errorf("cannot use LLM provider %q; %s", ch.Provider, Help)
}

func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
