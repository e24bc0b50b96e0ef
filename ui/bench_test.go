package ui

import (
	"net/http"
	"testing"
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
	for b.Loop() {
		if w := f.do("GET", "/runs/"+id, ""); w.Code != http.StatusOK {
			b.Fatalf("%d: %s", w.Code, w.Body)
		}
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
