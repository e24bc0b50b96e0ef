package main

import "io"

// runtimeIO is what a run gives the actions besides their configuration:
// where to log, who to ask. Commands that do not run anything pass nil.
type runtimeIO struct {
	RunID   string
	RunDir  string    // the run's directory ("" when the run is not durable)
	Audit   io.Writer // the gateway's audit log (JSON lines)
	LLMLog  io.Writer // the LLM call log with token usage (JSON lines)
	NoInput bool      // never prompt: pause instead
	In      io.Reader // the person's terminal, when interactive
	Out     io.Writer
}
