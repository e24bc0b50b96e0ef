package skills

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Field limits, in characters.
const (
	MaxNameLen  = 80
	MaxFieldLen = 2000
)

// hasControl reports whether s holds a control character; with multiline,
// newlines and tabs are allowed.
func hasControl(s string, multiline bool) bool {
	_, ok := firstControl(s, multiline)
	return ok
}

func firstControl(s string, multiline bool) (rune, bool) {
	for _, r := range s {
		if multiline && (r == '\n' || r == '\t' || r == '\r') {
			continue
		}
		if unicode.IsControl(r) || r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			return r, true
		}
	}
	return 0, false
}

// ValidateName checks a skill name: not empty, at most MaxNameLen
// characters, valid UTF-8, no control characters and no surrounding spaces.
// Errors wrap ErrInvalid.
func ValidateName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("skill name is empty: %w", ErrInvalid)
	case !utf8.ValidString(name):
		return fmt.Errorf("skill name %q is not valid UTF-8: %w", name, ErrInvalid)
	case utf8.RuneCountInString(name) > MaxNameLen:
		return fmt.Errorf("skill name is %d characters long; the limit is %d: %w", utf8.RuneCountInString(name), MaxNameLen, ErrInvalid)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("skill name %q has leading or trailing spaces: %w", name, ErrInvalid)
	}
	if r, ok := firstControl(name, false); ok {
		return fmt.Errorf("skill name %q contains the control character %U: %w", name, r, ErrInvalid)
	}
	if i := strings.IndexFunc(name, invisible); i >= 0 {
		r, _ := utf8.DecodeRuneInString(name[i:])
		return fmt.Errorf("skill name %q contains the invisible character %U (a zero-width or text-direction mark), so it would look like %q; leave it out: %w", name, r, strings.Map(dropInvisible, name), ErrInvalid)
	}
	return nil
}

// invisible reports a format character (Unicode category Cf: zero-width
// spaces and joiners, text-direction marks and overrides, the byte order
// mark...). In a name it makes two skills that look the same, or one that
// reads backwards in a terminal.
func invisible(r rune) bool { return unicode.Is(unicode.Cf, r) }

func dropInvisible(r rune) rune {
	if invisible(r) {
		return -1
	}
	return r
}

// validateField checks a principle or when_to_apply text: not blank, at most
// MaxFieldLen characters, valid UTF-8, no control characters but newlines and tabs.
func validateField(field, text string) error {
	switch {
	case strings.TrimSpace(text) == "":
		return fmt.Errorf("%s is empty: %w", field, ErrInvalid)
	case !utf8.ValidString(text):
		return fmt.Errorf("%s is not valid UTF-8: %w", field, ErrInvalid)
	case utf8.RuneCountInString(text) > MaxFieldLen:
		return fmt.Errorf("%s is %d characters long; the limit is %d: %w", field, utf8.RuneCountInString(text), MaxFieldLen, ErrInvalid)
	}
	if r, ok := firstControl(text, true); ok {
		return fmt.Errorf("%s contains the control character %U: %w", field, r, ErrInvalid)
	}
	return nil
}

// Validate checks the skill's name, principle and when_to_apply, and that
// its counters are not negative. Errors wrap ErrInvalid.
func (s Skill) Validate() error {
	if err := ValidateName(s.Name); err != nil {
		return err
	}
	if err := validateField("principle", s.Principle); err != nil {
		return err
	}
	if err := validateField("when_to_apply", s.WhenToApply); err != nil {
		return err
	}
	if s.CreatedIteration < 0 || s.LastUsedIteration < 0 || s.UsageCount < 0 {
		return fmt.Errorf("skill %q has a negative counter: %w", s.Name, ErrInvalid)
	}
	return nil
}
