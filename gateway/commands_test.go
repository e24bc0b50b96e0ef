package gateway

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The commands the gateway describes to checkers are exactly what Call
// accepts: every name and alias passes the parameter decoding, and a name
// not listed is refused as unknown.
func TestCommandsDescribeWhatCallAccepts(t *testing.T) {
	p := testPolicy(t)
	cmds := p.Commands()
	if got, want := commandNames(cmds), sortedKeys(p.CLI.SubCommands); !slices.Equal(got, want) {
		t.Fatalf("Commands() = %v, want the policy's %v", got, want)
	}
	for _, c := range cmds {
		for _, prm := range c.Params {
			for _, n := range prm.Names() {
				if c.Name == "python_run" {
					if _, err := decodeRunRequest(map[string]any{n: "x"}); err != nil && strings.Contains(err.Error(), "unknown argument") {
						t.Errorf("%s.%s: %v", c.Name, n, err)
					}
					continue
				}
				_, res, ok := (&Gateway{policy: p}).checkParams(p.CLI.SubCommands[c.Name], map[string]any{n: "x"})
				if !ok && strings.Contains(res.Text, "unknown parameter") {
					t.Errorf("%s.%s: %s", c.Name, n, res.Text)
				}
			}
		}
		if c.Name == "python_run" {
			continue
		}
		_, res, ok := (&Gateway{policy: p}).checkParams(p.CLI.SubCommands[c.Name], map[string]any{"no_such_param": "x"})
		if ok || !strings.Contains(res.Text, "unknown parameter") {
			t.Errorf("%s accepts an unlisted parameter: %s", c.Name, res.Text)
		}
	}
	read := cmds[slices.IndexFunc(cmds, func(c Command) bool { return c.Name == "read_file" })]
	want := CommandParam{Name: "path", Aliases: []string{"file", "filename", "file_path"}, Required: true, Scalar: true}
	if len(read.Params) != 1 || !slices.Equal(read.Params[0].Names(), want.Names()) || read.Params[0].Required != want.Required || !read.Params[0].Scalar {
		t.Errorf("read_file params = %+v, want [%+v]", read.Params, want)
	}
}

func TestBuiltinCommandsListEveryImplementedSubCommand(t *testing.T) {
	cmds := BuiltinCommands()
	if got, want := commandNames(cmds), implementedSubCommands(); !slices.Equal(got, want) {
		t.Fatalf("BuiltinCommands() = %v, want %v", got, want)
	}
	for _, c := range cmds {
		for _, prm := range c.Params {
			if c.Name == "python_run" {
				continue
			}
			if req, ok := nativeParams[c.Name][prm.Name]; !ok || req != prm.Required {
				t.Errorf("%s.%s: required %v, the gateway says %v (known %v)", c.Name, prm.Name, prm.Required, req, ok)
			}
		}
	}
}

func TestRunnerParamsCoverEveryRunnerKey(t *testing.T) {
	var names []string
	for _, p := range RunnerParams() {
		names = append(names, p.Names()...)
	}
	slices.Sort(names)
	if want := sortedKeys(runnerKeys); !slices.Equal(names, want) {
		t.Fatalf("RunnerParams names = %v, want %v", names, want)
	}
}

func commandNames(cmds []Command) []string {
	var out []string
	for _, c := range cmds {
		out = append(out, c.Name)
	}
	return out
}

// move_file compares the destination with the source as the file system
// does: on a case-sensitive one, another case is another name, not the
// source itself.
func TestAMoveToAnotherCaseIsNotAMoveIntoItself(t *testing.T) {
	sb := newSandbox(t)
	sb.write(t, "output/d/f.txt", "hi\n")
	caseSensitive := true
	if _, err := os.Stat(filepath.Join(sb.root, "output", "D", "F.TXT")); err == nil {
		caseSensitive = false
	}
	res := sb.cli("move_file", map[string]any{"src": "output/d/f.txt", "dst": "output/d/F.TXT"})
	checkInvariant(t, res)
	if caseSensitive {
		assert.Equal(t, "moved output/d/f.txt to output/d/F.TXT", res.Text)
		res = sb.cli("move_file", map[string]any{"src": "output/d", "dst": "output/D/sub"})
		assert.Equal(t, "moved output/d to output/D/sub", res.Text)
	} else {
		assert.Equal(t, `[ERROR] move_file: destination "output/d/F.TXT" already exists`, res.Text)
	}
	res = sb.cli("move_file", map[string]any{"src": "output/D", "dst": "output/D/x"})
	assert.Equal(t, `[ERROR] move_file: cannot move "output/D" into itself`, res.Text)
}
