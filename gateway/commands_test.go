package gateway

import (
	"slices"
	"strings"
	"testing"
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
