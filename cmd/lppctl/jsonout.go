package main

import (
	"encoding/json"
	"fmt"
	"io"
)

// The --json convention of every command (README, "CLI"): stdout holds only
// JSON and messages for a person go to stderr; the exit code is the same as
// without --json. A command that reports records (run and resume progress,
// runs, runs trace, actions, validate, skills list and search) prints JSON
// Lines: one compact object per record and line, none for no records. A
// command about one thing (runs show, skills add, update, remove) prints one
// JSON object.

// printJSONLines writes each item as one compact JSON line.
func printJSONLines[T any](w io.Writer, items []T) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return fmt.Errorf("cannot write JSON: %w", err)
		}
	}
	return nil
}

// printJSON writes one JSON object, indented for a person reading it.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("cannot write JSON: %w", err)
	}
	return nil
}
