package fsx

import "testing"

func TestCleanRelKeepsAPathInsideItsFolder(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
		ok             bool
	}{
		{name: "a plain path", in: "reference/in.txt", want: "reference/in.txt", ok: true},
		{name: "cleaned, with slashes", in: `reference\.\sub//in.txt`, want: "reference/sub/in.txt", ok: true},
		{name: "a .. that stays inside", in: "a/../b", want: "b", ok: true},
		{name: "empty", in: ""},
		{name: "absolute", in: "/etc/passwd"},
		{name: "absolute with a backslash", in: `\etc\passwd`},
		{name: "the parent", in: ".."},
		{name: "out through the parent", in: "a/../../b"},
		{name: "a NUL byte", in: "a\x00b"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := CleanRel(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("CleanRel(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}
