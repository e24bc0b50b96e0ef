package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// contractorEvidence gathers, from every journal of the project's runs
// (the contractor's and its validating children's), each distinct value
// of a context variable that reports a failed behavioural example: what
// the example expected, what the run gave, and the script's stderr. A test
// that fails appends it to its message, so a failure that happens only
// under load shows its cause.
func contractorEvidence(root string) string {
	seen := map[string]bool{}
	var reports []string
	_ = filepath.WalkDir(filepath.Join(root, ".lppctl", "runs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "journal.jsonl" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		for _, line := range strings.Split(string(b), "\n") {
			var rec struct {
				Vars map[string]any `json:"vars"`
			}
			if json.Unmarshal([]byte(line), &rec) != nil {
				continue
			}
			for _, v := range rec.Vars {
				s, ok := v.(string)
				if !ok || !strings.Contains(s, "FAIL example") || seen[s] {
					continue
				}
				seen[s] = true
				rel, _ := filepath.Rel(root, p)
				reports = append(reports, rel+":\n"+s)
			}
		}
		return nil
	})
	if len(reports) == 0 {
		return "(no failed example in the journals)"
	}
	sort.Strings(reports)
	return "failed examples, from the journals:\n" + strings.Join(reports, "\n---\n")
}
