package yamlsrc

import "strings"

// flowSplit finds, on a line of a YAML flow collection ({ } or [ ]), the
// place where YAML cuts an unquoted value the author meant whole: a comma
// inside the parentheses of a plain scalar (`when: hasPrefix(x, "a")`: YAML
// ends the value at the comma), or a bracket inside one (`when: x in ["a"]`).
// It returns the 1-based column, the key the value belongs to ("" in a
// list) and the value as meant (up to its closing parenthesis or bracket),
// or col 0 when the line has no such place.
func flowSplit(line string) (col int, key, value string) {
	runes := []rune(line)
	var quote rune
	plainStart := -1 // where the plain scalar being read starts (-1: none)
	keyStart, keyEnd := -1, -1
	depth := 0 // parentheses and brackets open inside the plain scalar
	prev := ' '
	for i, r := range runes {
		if quote != 0 {
			if r == '\\' && quote == '"' && i+1 < len(runes) {
				continue
			}
			if r == quote && (i == 0 || runes[i-1] != '\\' || quote == '\'') {
				quote = 0
			}
			prev = r
			continue
		}
		atStart := plainStart < 0 && strings.ContainsRune("{[,:- ", prev)
		switch {
		case atStart && (r == '\'' || r == '"'):
			quote = r
		case atStart && r == '-' && (i+1 == len(runes) || runes[i+1] == ' '):
			// a block sequence's item indicator
		case atStart && r != ' ' && !strings.ContainsRune("{}[],:#&*!|>%@`", r):
			plainStart = i
		case plainStart >= 0 && r == ':' && i+1 < len(runes) && runes[i+1] == ' ' && depth == 0:
			keyStart, keyEnd = plainStart, i // a key ends; its value follows
			plainStart = -1
		case plainStart >= 0 && (r == '(' || ((r == '[' || r == '{') && depth > 0) || (r == '[' && i > plainStart)):
			if r == '[' && depth == 0 {
				return i + 1, keyOf(runes, keyStart, keyEnd), meantValue(runes, plainStart)
			}
			depth++
		case plainStart >= 0 && (r == ')' || r == ']' || r == '}') && depth > 0:
			depth--
		case plainStart >= 0 && r == ',' && depth > 0:
			return i + 1, keyOf(runes, keyStart, keyEnd), meantValue(runes, plainStart)
		case plainStart >= 0 && (r == ',' || r == '}' || r == ']'):
			plainStart, keyStart, keyEnd = -1, -1, -1
		}
		prev = r
	}
	return 0, "", ""
}

func keyOf(runes []rune, start, end int) string {
	if start < 0 {
		return ""
	}
	return strings.TrimSpace(string(runes[start:end]))
}

// meantValue is the plain scalar that starts at start, read as the author
// meant it: up to where its parentheses and brackets close.
func meantValue(runes []rune, start int) string {
	depth := 0
	var quote rune
	for i := start; i < len(runes); i++ {
		r := runes[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '(' || r == '[' || r == '{':
			depth++
		case r == ')' || r == ']' || r == '}':
			if depth == 0 {
				return strings.TrimSpace(string(runes[start:i]))
			}
			depth--
		case r == ',' && depth == 0:
			return strings.TrimSpace(string(runes[start:i]))
		}
	}
	return strings.TrimSpace(string(runes[start:]))
}

// flowSplitHint explains a value YAML split, with the value quoted.
func flowSplitHint(key, value string) string {
	quoted := "'" + strings.ReplaceAll(value, "'", "''") + "'"
	if key != "" {
		quoted = key + ": " + quoted
	}
	return "inside { } and [ ], YAML ends an unquoted value at a comma or a bracket: quote the whole expression, " + quoted
}
