package main

import (
	"encoding/json"
	"testing"
)

// prefixShares returns the share of the request bytes that are a prefix of
// the previous request (what a provider's prefix cache of one entry would
// hit) and of the earlier request sharing the longest prefix (a cache that
// keeps every entry).
func prefixShares(bodies [][]byte) (prev, best float64) {
	var total, p, b int
	for i, body := range bodies {
		total += len(body)
		if i == 0 {
			continue
		}
		p += commonPrefix(body, bodies[i-1])
		longest := 0
		for _, earlier := range bodies[:i] {
			longest = max(longest, commonPrefix(body, earlier))
		}
		b += longest
	}
	if total == 0 {
		return 0, 0
	}
	return float64(p) / float64(total), float64(b) / float64(total)
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func TestPrefixShares(t *testing.T) {
	prev, best := prefixShares([][]byte{[]byte("abcd"), []byte("abXY"), []byte("abcZ")})
	// 4+4+4 bytes; vs previous: 0, 2 ("ab"), 2 ("ab"); best: 0, 2, 3 ("abc")
	if prev != 4.0/12 || best != 5.0/12 {
		t.Errorf("prefixShares = %v, %v", prev, best)
	}
}

// BenchmarkAgentPromptPrefixShare runs the 50-step plan of
// TestAgentPromptSizePerStep and reports how much of the chat requests'
// bytes (as the real OpenAI client sends them) repeat a prefix already
// sent: go test ./cmd/lppctl -run '^$' -bench PromptPrefixShare -benchtime 1x
func BenchmarkAgentPromptPrefixShare(b *testing.B) {
	for range b.N {
		run := runLongPlan(b, 50, true)
		prev, best := prefixShares(run.bodies)
		var bytes int
		for _, body := range run.bodies {
			bytes += len(body)
		}
		// the messages alone, as providers put tools before them in the prompt
		var msgs [][]byte
		for _, body := range run.bodies {
			var req struct {
				Messages json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(body, &req); err != nil {
				b.Fatal(err)
			}
			msgs = append(msgs, req.Messages)
		}
		mprev, mbest := prefixShares(msgs)
		b.ReportMetric(mprev, "msgs-prefix-share-prev")
		b.ReportMetric(mbest, "msgs-prefix-share-best")
		b.ReportMetric(prev, "prefix-share-prev")
		b.ReportMetric(best, "prefix-share-best")
		b.ReportMetric(float64(len(run.bodies)), "requests")
		b.ReportMetric(float64(bytes), "request-bytes")
	}
}
