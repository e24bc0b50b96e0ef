package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/lppctl/lppctl/internal/llmenv"
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
	`or set LPPCTL_LLM to one of those, or set OPENAI_API_KEY (and OPENAI_API_BASE or OPENAI_BASE_URL for any OpenAI-compatible server, OPENAI_MODEL), ` +
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
	case getenv("OPENAI_BASE_URL") != "":
		return Choice{Provider: "openai", Source: "OPENAI_BASE_URL"}, nil
	case getenv("ANTHROPIC_API_KEY") != "":
		return Choice{Provider: "anthropic", Source: "ANTHROPIC_API_KEY"}, nil
	case getenv("OLLAMA_HOST") != "":
		return Choice{Provider: "ollama", Source: "OLLAMA_HOST"}, nil
	}
	return Choice{}, fmt.Errorf("%w: %s", ErrNoProvider, Help)
}

var example = map[string]string{"openai": "openai:" + DefaultOpenAIModel, "anthropic": "anthropic:" + DefaultAnthropicModel, "ollama": "ollama:" + DefaultOllamaModel}

func parseSpec(spec, source string) (Choice, error) {
	p, rest, colon := strings.Cut(strings.TrimSpace(spec), ":")
	p = strings.ToLower(strings.TrimSpace(p))
	rest = strings.TrimSpace(rest)
	switch p {
	case "openai", "anthropic", "ollama":
		if colon && rest == "" {
			return Choice{}, fmt.Errorf("cannot use LLM %q (from %s): no model after %q; name one (e.g. %s) or leave out the colon for the default", spec, source, p+":", example[p])
		}
		return Choice{Provider: p, Model: rest, Source: source}, nil
	case "script":
		if rest == "" {
			return Choice{}, fmt.Errorf("cannot use LLM %q (from %s): script: needs a file, e.g. script:skills/hello_skill/demo.yaml", spec, source)
		}
		return Choice{Provider: p, Model: rest, Source: source}, nil
	}
	return Choice{}, fmt.Errorf("cannot use LLM %q (from %s): unknown provider %q; %s", spec, source, p, Help)
}

// Default base URLs of the hosted APIs (langchaingo's own defaults).
const (
	DefaultOpenAIBase    = "https://api.openai.com/v1"
	DefaultAnthropicBase = "https://api.anthropic.com/v1"
)

// minSecretLen is the shortest API key that is redacted from error messages
// (a shorter one would blank out ordinary words).
const minSecretLen = 8

// New builds the client for a choice. It makes no network call.
func New(ch Choice, o Options) (Client, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	model := ch.Model
	switch ch.Provider {
	case "script":
		return LoadScript(ch.Model)
	case "openai":
		if model == "" {
			model = firstSet(getenv("OPENAI_MODEL"), DefaultOpenAIModel)
		}
		key, base := getenv("OPENAI_API_KEY"), firstSet(getenv("OPENAI_API_BASE"), getenv("OPENAI_BASE_URL"))
		if key == "" && base == "" {
			return nil, fmt.Errorf("cannot use openai: OPENAI_API_KEY is not set (set it, or OPENAI_API_BASE for a local OpenAI-compatible server); %s", Help)
		}
		if base == "" {
			base = DefaultOpenAIBase
		}
		base, err := normalizeBaseURL(base)
		if err != nil {
			return nil, fmt.Errorf("cannot use openai: OPENAI_API_BASE %w", err)
		}
		c := &lcClient{provider: "openai", name: model, base: base, retry: o.Retry, secrets: secrets(key)}
		if key == "" {
			key = "none" // local OpenAI-compatible servers need no key, langchaingo needs one
		}
		m, err := openai.New(openai.WithToken(key), openai.WithModel(model), openai.WithBaseURL(base), openai.WithHTTPClient(httpClient(o.HTTPClient, true)))
		if err != nil {
			return nil, fmt.Errorf("cannot use openai: %w", err)
		}
		c.model = m
		return c, nil
	case "anthropic":
		if model == "" {
			model = firstSet(getenv("ANTHROPIC_MODEL"), DefaultAnthropicModel)
		}
		key := getenv("ANTHROPIC_API_KEY")
		if key == "" {
			return nil, fmt.Errorf("cannot use anthropic: ANTHROPIC_API_KEY is not set; %s", Help)
		}
		base := firstSet(getenv("ANTHROPIC_BASE_URL"), DefaultAnthropicBase)
		base, err := normalizeBaseURL(base)
		if err != nil {
			return nil, fmt.Errorf("cannot use anthropic: ANTHROPIC_BASE_URL %w", err)
		}
		m, err := anthropic.New(anthropic.WithToken(key), anthropic.WithModel(model), anthropic.WithBaseURL(base), anthropic.WithHTTPClient(httpClient(o.HTTPClient, false)))
		if err != nil {
			return nil, fmt.Errorf("cannot use anthropic: %w", err)
		}
		return &lcClient{model: m, provider: "anthropic", name: model, base: base, retry: o.Retry, secrets: secrets(key), oneToolCallPerMessage: true, flattenWithoutTools: true}, nil
	case "ollama":
		if model == "" {
			model = firstSet(getenv("OLLAMA_MODEL"), DefaultOllamaModel)
		}
		base, err := ollamaBase(firstSet(getenv("OLLAMA_HOST"), DefaultOllamaHost))
		if err != nil {
			return nil, fmt.Errorf("cannot use ollama: OLLAMA_HOST %w", err)
		}
		// Ollama serves an OpenAI-compatible API under /v1 with native tool
		// calling; langchaingo v0.1.14's own ollama adapter drops tool calls,
		// so the OpenAI client is used against it, and ollamaNative (its
		// /api/chat, with tools) when the server has no /v1.
		hc := httpClient(o.HTTPClient, true)
		m, err := openai.New(openai.WithToken("ollama"), openai.WithModel(model), openai.WithBaseURL(base), openai.WithHTTPClient(hc))
		if err != nil {
			return nil, fmt.Errorf("cannot use ollama: %w", err)
		}
		native := &ollamaNative{host: strings.TrimSuffix(base, "/v1"), model: model, hc: hc}
		return &lcClient{model: m, native: native, provider: "ollama", name: model, base: base, retry: o.Retry}, nil
	}
	return nil, fmt.Errorf("cannot use LLM provider %q; %s", ch.Provider, Help)
}

// ollamaBase turns OLLAMA_HOST (host, host:port or a URL, as Ollama's own
// clients take it) into the base URL of its OpenAI-compatible API.
func ollamaBase(host string) (string, error) {
	h := strings.TrimSpace(host)
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	u, err := url.Parse(strings.TrimRight(h, "/"))
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%q is not a host or URL", host)
	}
	if u.Port() == "" && u.Scheme == "http" {
		u.Host = net.JoinHostPort(u.Hostname(), "11434")
	}
	base, err := normalizeBaseURL(u.String())
	if err != nil {
		return "", err
	}
	if !strings.HasSuffix(base, "/v1") {
		base += "/v1"
	}
	return base, nil
}

// httpClient wraps the given client (nil: a default one) with the transports
// the retries and the base URL fallback need, and for OpenAI-compatible
// servers (normalize) the reply checks; a redirect that would change the
// call's method is refused (checkRedirect).
func httpClient(hc *http.Client, normalize bool) *http.Client {
	cp := http.Client{}
	if hc != nil {
		cp = *hc
	}
	base := cp.Transport
	if st, ok := base.(statusTransport); ok {
		base = st.base
	}
	if base == nil {
		base = http.DefaultTransport
	}
	base = &compatTransport{base: base, normalize: normalize}
	cp.Transport = statusTransport{base: base}
	if cp.CheckRedirect == nil {
		cp.CheckRedirect = checkRedirect
	}
	return &cp
}

// secrets lists the values to redact from error messages.
func secrets(keys ...string) []string {
	var out []string
	for _, k := range keys {
		if len(k) >= minSecretLen {
			out = append(out, k)
		}
	}
	return out
}

func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// ServerModel picks the model for an OpenAI-compatible server (openai with
// a base URL of its own, or ollama) when none is named: neither --llm
// provider:MODEL nor OPENAI_MODEL / OLLAMA_MODEL. Local servers serve the
// models they loaded (vLLM, LM Studio) or pulled (Ollama), and refuse the
// default's name. It asks the server's /models (5 s at most, less when
// $LPPCTL_LLM_TIMEOUT bounds a model call to less) and returns the
// default when the server lists it, else the first model listed; "" when
// nothing is to be chosen or the server does not say (the call then goes
// out with the default and its error says what the server thinks).
func ServerModel(ctx context.Context, ch Choice, getenv func(string) string, hc *http.Client) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	var base, def, key string
	switch ch.Provider {
	case "openai":
		if ch.Model != "" || getenv("OPENAI_MODEL") != "" {
			return ""
		}
		b := firstSet(getenv("OPENAI_API_BASE"), getenv("OPENAI_BASE_URL"))
		if b == "" {
			return ""
		}
		nb, err := normalizeBaseURL(b)
		if err != nil || nb == DefaultOpenAIBase {
			return ""
		}
		base, def, key = nb, DefaultOpenAIModel, getenv("OPENAI_API_KEY")
	case "ollama":
		if ch.Model != "" || getenv("OLLAMA_MODEL") != "" {
			return ""
		}
		b, err := ollamaBase(firstSet(getenv("OLLAMA_HOST"), DefaultOllamaHost))
		if err != nil {
			return ""
		}
		base, def = b, DefaultOllamaModel
	default:
		return ""
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	limit := serverModelTimeout
	if r, err := llmenv.Read(getenv); err == nil && r.Timeout > 0 && r.Timeout < limit {
		limit = r.Timeout // LPPCTL_LLM_TIMEOUT=1s: the question about models waits no longer than a call
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	urls := []string{base + "/models", strings.TrimSuffix(otherAPIPath(base+"/chat/completions"), "/chat/completions") + "/models"}
	if ch.Provider == "ollama" {
		urls = append(urls, strings.TrimSuffix(base, "/v1")+"/api/tags")
	}
	for _, u := range urls {
		ids := listModels(ctx, hc, u, key)
		if len(ids) == 0 {
			continue
		}
		for _, id := range ids {
			if id == def || id == def+":latest" {
				return def
			}
		}
		return ids[0]
	}
	return ""
}

// serverModelTimeout bounds ServerModel's question to the server when
// $LPPCTL_LLM_TIMEOUT does not bound it to less.
const serverModelTimeout = 5 * time.Second

func listModels(ctx context.Context, hc *http.Client, u, key string) []string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key) // vLLM --api-key, LiteLLM
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		Models []struct { // Ollama's /api/tags
			Name string `json:"name"`
		} `json:"models"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&list) != nil {
		return nil
	}
	var ids []string
	for _, m := range list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	for _, m := range list.Models {
		if m.Name != "" {
			ids = append(ids, m.Name)
		}
	}
	return ids
}
