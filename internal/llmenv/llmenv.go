// Package llmenv reads the environment variables that bound model calls:
// $LPPCTL_LLM_RETRIES, $LPPCTL_LLM_BACKOFF and $LPPCTL_LLM_TIMEOUT. The LLM
// actions and the skill library's embedder read them the same way, and quote
// a provider's message (Said) and read its Retry-After (RetryAfter) alike.
package llmenv

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultTimeout bounds one model call (an attempt) when
// $LPPCTL_LLM_TIMEOUT is unset.
const DefaultTimeout = 120 * time.Second

// RetryEnv is what $LPPCTL_LLM_RETRIES, $LPPCTL_LLM_BACKOFF and
// $LPPCTL_LLM_TIMEOUT say; zero where unset.
type RetryEnv struct {
	Attempts int
	Backoff  time.Duration
	Timeout  time.Duration
}

// Read reads the retry bounds from the environment. A value that
// is set but cannot be read (LPPCTL_LLM_RETRIES=abc, a timeout of -1s) is
// an error naming the variable, what it holds and what it takes; the
// values read before it are returned with it.
func Read(getenv func(string) string) (RetryEnv, error) {
	var r RetryEnv
	if v := strings.TrimSpace(getenv("LPPCTL_LLM_RETRIES")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return r, fmt.Errorf("LPPCTL_LLM_RETRIES: cannot read %q: write a whole number of attempts, 1 or more (the first call included; 4 when unset)", v)
		}
		r.Attempts = n
	}
	if v := strings.TrimSpace(getenv("LPPCTL_LLM_BACKOFF")); v != "" {
		b, err := time.ParseDuration(v)
		if err != nil || b <= 0 {
			return r, fmt.Errorf("LPPCTL_LLM_BACKOFF: cannot read %q: write a duration above 0 such as 500ms or 2s (the first wait; 1s when unset)", v)
		}
		r.Backoff = b
	}
	if v := strings.TrimSpace(getenv("LPPCTL_LLM_TIMEOUT")); v != "" {
		if secs, err := strconv.Atoi(v); err == nil && secs > 0 {
			r.Timeout = time.Duration(secs) * time.Second
		} else if t, err := time.ParseDuration(v); err == nil && t > 0 {
			r.Timeout = t
		} else {
			return r, fmt.Errorf("LPPCTL_LLM_TIMEOUT: cannot read %q: write a duration above 0 such as 30s, or a number of seconds (per attempt; 120s when unset)", v)
		}
	}
	return r, nil
}

// Said is a provider's message as an error quotes it: blanks collapsed,
// cut to 300 bytes (at a character boundary) with an ellipsis.
func Said(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return s
}

// RetryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (0 when absent, past or unreadable).
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(secs, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
