package main

import "strings"

// pristineSkillsMD returns a skill's skills.md as it was before any run
// learned into it: every entry lppctl appended (a "### [DATE UTC]" heading
// followed by its "<!-- lppctl:entry ID -->" marker, up to the next heading)
// is cut, and so is a learning section (Success Cases, Failure Cases, Human
// Feedback) left empty. Entries a person wrote without a marker stay. Tests
// copy skills through it so that a demo run in the checkout (which appends
// to skills/hello_skill/skills.md) cannot change what they see.
func pristineSkillsMD(text string) string {
	nl := "\n"
	if i := strings.IndexByte(text, '\n'); i > 0 && text[i-1] == '\r' {
		nl = "\r\n"
	}
	lines := strings.SplitAfter(text, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		if !isLearnedEntry(lines, i) {
			out = append(out, lines[i])
			continue
		}
		out = trimBlankLines(out)
		for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "#") {
			i++
		}
		if i+1 < len(lines) {
			out = append(out, nl)
		}
	}
	var kept []string
	for i := 0; i < len(out); i++ {
		if isLearningHeading(out[i]) {
			j := i + 1
			for j < len(out) && strings.TrimSpace(out[j]) == "" {
				j++
			}
			if j == len(out) || headingLevel(out[j]) == 1 || headingLevel(out[j]) == 2 {
				kept = trimBlankLines(kept)
				if j < len(out) && len(kept) > 0 {
					kept = append(kept, nl)
				}
				i = j - 1
				continue
			}
		}
		kept = append(kept, out[i])
	}
	s := strings.Join(trimBlankLines(kept), "")
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += nl
	}
	return s
}

// isLearnedEntry reports whether lines[i] starts an entry lppctl appended.
func isLearnedEntry(lines []string, i int) bool {
	h := strings.TrimRight(lines[i], "\r\n")
	return strings.HasPrefix(h, "### [") && strings.HasSuffix(h, " UTC]") &&
		i+1 < len(lines) && strings.HasPrefix(lines[i+1], "<!-- lppctl:entry ")
}

func isLearningHeading(line string) bool {
	switch strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "## ")) {
	case "Success Cases", "Failure Cases", "Human Feedback":
		return headingLevel(line) == 2
	}
	return false
}

// headingLevel is the level of an ATX heading line ("## x" is 2), else 0.
func headingLevel(line string) int {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n < len(line) && line[n] != ' ' && line[n] != '\t' && line[n] != '\r' && line[n] != '\n' {
		return 0
	}
	return n
}

// trimBlankLines drops the blank lines at the end of lines.
func trimBlankLines(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
