package ui

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/internal/promptlog"
	"github.com/lppctl/lppctl/machine/runstore"
)

// BenchmarkRunPage10k measures the server's side of a 10,000-transition
// run's page (the target: < 300 ms): reading and folding the journal, drawing
// the path on the spec's Mermaid source, and rendering one timeline page
// (50 rows) with its LLM and audit lines. The browser's Mermaid rendering
// is not part of it.
//
//	go test ./ui -run - -bench RunPage10k -benchtime 10x
func BenchmarkRunPage10k(b *testing.B) {
	f := newFixture(b, Options{})
	f.srv.mermaid = true // what the page does with the embedded library
	id := f.addRun(10000, approval())
	for _, first := range []bool{true, false} {
		name := "again" // a refresh: the journal as read before (runstore.Tail)
		if first {
			name = "first" // the journal read whole
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if first {
					f.srv.journals = recent[*runstore.Tail]{keep: journalsKept}
				}
				if w := f.do("GET", "/runs/"+id, ""); w.Code != http.StatusOK {
					b.Fatalf("%d: %s", w.Code, w.Body)
				}
			}
		})
	}
}

// BenchmarkRunsPage100 measures the runs page over 100 runs of 100
// transitions each.
//
//	go test ./ui -run - -bench RunsPage100 -benchtime 10x
func BenchmarkRunsPage100(b *testing.B) {
	f := newFixture(b, Options{})
	for range 100 {
		f.addRun(100, nil)
	}
	for b.Loop() {
		if w := f.do("GET", "/", ""); w.Code != http.StatusOK {
			b.Fatalf("%d: %s", w.Code, w.Body)
		}
	}
}

// BenchmarkRunPage10kAtStep measures a 10,000-transition run's page with
// its context and memory after step 5,000 (?at=5000: the journal folded
// twice).
//
//	go test ./ui -run - -bench RunPage10kAtStep -benchtime 10x
func BenchmarkRunPage10kAtStep(b *testing.B) {
	f := newFixture(b, Options{})
	f.srv.mermaid = true
	id := f.addRun(10000, approval())
	for b.Loop() {
		if w := f.do("GET", "/runs/"+id+"?at=5000", ""); w.Code != http.StatusOK {
			b.Fatalf("%d: %s", w.Code, w.Body)
		}
	}
}

// BenchmarkResolveMessages looks up the messages of a page's 50 model
// calls in a 20 MB prompts.jsonl (2,000 values of 10 KB), as a run page does
// at each refresh: the first page reads the file, the next ones only what
// was appended (promptlog.Index); 118 ms a page when each read the file
// whole.
//
//	go test ./ui -run '^$' -bench ResolveMessages -benchtime 20x
func BenchmarkResolveMessages(b *testing.B) {
	f := newFixture(b, Options{})
	dir := b.TempDir()
	l := promptlog.Open(filepath.Join(dir, runstore.PromptsFile))
	var ids []string
	for i := range 2000 {
		got, err := l.Put(map[string]any{"role": "user", "text": fmt.Sprintf("%d %s", i, strings.Repeat("x", 10000))})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, got...)
	}
	calls := make([]*logLine, 50)
	for i := range calls {
		calls[i] = &logLine{PromptIDs: ids[i*3 : i*3+3], ReplyID: ids[1999-i]}
	}
	f.srv.resolveMessages(dir, calls) // the first page reads the file
	b.ReportAllocs()
	for b.Loop() {
		f.srv.resolveMessages(dir, calls)
	}
}

// BenchmarkRunsPage3000 measures the runs page over 3,000 runs of 200
// transitions each: the list, a status filter, and a search that reads
// every journal (no run matches it by its summary).
//
//	go test ./ui -run - -bench RunsPage3000 -benchtime 5x -count 3
func BenchmarkRunsPage3000(b *testing.B) {
	f := newFixture(b, Options{})
	for range 3000 {
		f.addRun(200, nil)
	}
	for _, page := range []struct{ name, url string }{
		{"list", "/"},
		{"filter", "/?status=failed"},
		{"search", "/?q=nothing-matches-this"},
	} {
		b.Run(page.name, func(b *testing.B) {
			for b.Loop() {
				if w := f.do("GET", page.url, ""); w.Code != http.StatusOK {
					b.Fatalf("%d: %s", w.Code, w.Body)
				}
			}
		})
	}
}
