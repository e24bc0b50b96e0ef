package layout

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the package graph in README.md from go list")

const (
	module = "github.com/lppctl/lppctl"
	self   = "internal/layout"

	graphBegin = "<!-- package-graph:begin (generated: go test ./internal/layout -update) -->"
	graphEnd   = "<!-- package-graph:end -->"
)

// forbidden are the import-path prefixes no package under machine/ may
// depend on, directly or not: the LLM, tool and skill side of the project.
var forbidden = []string{
	module + "/actions",
	module + "/gateway",
	module + "/skills",
	"github.com/tmc/langchaingo",
}

// stageImports are the only packages of the module each stage package of
// machine/ may import (its doc.go says why): the checker reads the spec and
// compiled model of machine, never runstore or lpp; the exporters read
// machine and the checker's value domains; validation reads the spec model
// and the registry of machine; L++'s gate language reads only the spec
// model's did-you-mean hints.
var stageImports = map[string][]string{
	"machine/spec":         {"internal/textx", "machine/spec/yamlsrc"},
	"machine/spec/yamlsrc": {},
	"machine/check":        {"machine", "machine/spec", "machine/check/loopvar", "machine/check/sample", "internal/textx"},
	"machine/export":       {"machine", "machine/check", "machine/spec"},
	"machine/validate":     {"machine", "machine/spec"},
	"machine/lpp/gate":     {"machine/spec"},
}

// below are, for packages of the module, the packages of the module they
// must not depend on, even indirectly (their doc.go says why): the general
// building blocks of actions/ and the model providers stay below the Skills
// Agent's actions, which build on them; the examples' data (actions/examples)
// below the actions that run them, the run loop and the gateway.
var below = map[string][]string{
	"actions":          {"actions/agent"},
	"actions/llm":      {"actions", "actions/agent"},
	"actions/examples": {"actions", "actions/agent", "machine", "gateway"},
}

// upward lists, sorted, each "pkg -> dep" of deps (import path -> its
// dependencies) where a package of below depends on one its list names.
func upward(deps map[string][]string) []string {
	var out []string
	for pkg, ds := range deps {
		p, ok := own(pkg)
		if !ok {
			continue
		}
		for _, d := range ds {
			if q, ok := own(d); ok && slices.Contains(below[p], q) {
				out = append(out, p+" -> "+q)
			}
		}
	}
	slices.Sort(out)
	return out
}

// strayImports lists, sorted, each "pkg -> dep" of g where a package of
// stageImports imports a package of the module its list leaves out.
func strayImports(g map[string][]string) []string {
	var out []string
	for pkg, ok := range stageImports {
		for _, d := range g[pkg] {
			if !slices.Contains(ok, d) {
				out = append(out, pkg+" -> "+d)
			}
		}
	}
	slices.Sort(out)
	return out
}

// root returns the module's root folder (two levels above this package).
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, "go.mod"))
	require.NoError(t, err, "cannot find the module root above internal/layout")
	return dir
}

// goList runs `go list -f format patterns...` in the module root and returns
// its output as one "path dep dep ..." line per package.
func goList(t *testing.T, format string, patterns ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-f", format}, patterns...)...)
	cmd.Dir = root(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// parseLines turns "path dep dep ..." lines into a map from path to deps.
func parseLines(lines []string) map[string][]string {
	m := map[string][]string{}
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) > 0 {
			m[f[0]] = f[1:]
		}
	}
	return m
}

// moduleGraph keeps only the module's own packages and the imports between
// them, with the module prefix cut off ("machine/lpp"), leaving out this
// package.
func moduleGraph(imports map[string][]string) map[string][]string {
	g := map[string][]string{}
	for pkg, deps := range imports {
		p, ok := own(pkg)
		if !ok || p == self {
			continue
		}
		var ds []string
		for _, d := range deps {
			if q, ok := own(d); ok && q != self {
				ds = append(ds, q)
			}
		}
		slices.Sort(ds)
		g[p] = slices.Compact(ds)
	}
	return g
}

func own(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	return strings.CutPrefix(path, module+"/")
}

// mermaid draws g as a Mermaid flowchart: one node per package, one edge per
// import, both sorted so that the text is stable.
func mermaid(g map[string][]string) string {
	id := func(p string) string { return strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(p) }
	pkgs := make([]string, 0, len(g))
	for p := range g {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	var b strings.Builder
	b.WriteString("```mermaid\nflowchart LR\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", id(p), p)
	}
	for _, p := range pkgs {
		for _, d := range g[p] {
			fmt.Fprintf(&b, "  %s --> %s\n", id(p), id(d))
		}
	}
	b.WriteString("```\n")
	return b.String()
}

// violations lists, sorted, each "pkg -> dep" where a package under machine/
// depends on a forbidden package.
func violations(deps map[string][]string) []string {
	var out []string
	for pkg, ds := range deps {
		p, ok := own(pkg)
		if !ok || (p != "machine" && !strings.HasPrefix(p, "machine/")) {
			continue
		}
		for _, d := range ds {
			for _, f := range forbidden {
				if d == f || strings.HasPrefix(d, f+"/") {
					out = append(out, pkg+" -> "+d)
					break
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// section returns the text between the graph markers of readme.
func section(readme string) (before, graph, after string, err error) {
	before, rest, ok := strings.Cut(readme, graphBegin+"\n")
	if !ok {
		return "", "", "", fmt.Errorf("cannot find %q in README.md: put the markers around the flowchart of the Layout section", graphBegin)
	}
	graph, after, ok = strings.Cut(rest, graphEnd)
	if !ok {
		return "", "", "", fmt.Errorf("cannot find %q after %q in README.md", graphEnd, graphBegin)
	}
	return before, graph, after, nil
}

func TestMachineDependsOnNoLLMToolOrSkillPackage(t *testing.T) {
	deps := parseLines(goList(t, `{{.ImportPath}} {{join .Deps " "}}`, "./machine/..."))
	require.NotEmpty(t, deps)
	assert.Empty(t, violations(deps), "packages under machine/ must not depend on %v", forbidden)
}

func TestStagePackagesImportOnlyWhatTheirDocAllows(t *testing.T) {
	g := moduleGraph(parseLines(goList(t, `{{.ImportPath}} {{join .Imports " "}}`, "./machine/...")))
	for pkg := range stageImports {
		require.Contains(t, g, pkg, "go list ./machine/... has no %s", pkg)
	}
	assert.Empty(t, strayImports(g), "a stage package imports more than its doc.go allows (update stageImports and the doc.go together)")
}

func TestGeneralActionsDependOnNoAgentPackage(t *testing.T) {
	deps := parseLines(goList(t, `{{.ImportPath}} {{join .Deps " "}}`, "./actions/..."))
	for pkg := range below {
		require.Contains(t, deps, module+"/"+pkg, "go list ./actions/... has no %s", pkg)
	}
	require.Contains(t, deps, module+"/actions/agent", "go list ./actions/... has no actions/agent")
	assert.Empty(t, upward(deps), "a package depends on one it must stay below (see below and the packages' doc.go)")
}

func TestUpwardFindsADependencyOnAPackageAbove(t *testing.T) {
	tests := []struct {
		name string
		deps map[string][]string
		want []string
	}{
		{"the agent on the general actions", map[string][]string{module + "/actions/agent": {module + "/actions", module + "/actions/llm"}}, nil},
		{"the general actions on the agent", map[string][]string{module + "/actions": {"fmt", module + "/actions/agent"}},
			[]string{"actions -> actions/agent"}},
		{"the providers on the actions", map[string][]string{module + "/actions/llm": {module + "/actions"}},
			[]string{"actions/llm -> actions"}},
		{"the examples' data on the run loop and the actions", map[string][]string{module + "/actions/examples": {module + "/internal/textx", module + "/machine", module + "/actions"}},
			[]string{"actions/examples -> actions", "actions/examples -> machine"}},
		{"a package with no list", map[string][]string{module + "/cmd/lppctl": {module + "/actions/agent"}}, nil},
		{"outside the module", map[string][]string{"example.com/actions": {"example.com/actions/agent"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, upward(tt.deps))
		})
	}
}

func TestStrayImportsFindsAnImportOutsideTheStagesList(t *testing.T) {
	tests := []struct {
		name string
		g    map[string][]string
		want []string
	}{
		{"allowed", map[string][]string{"machine/export": {"machine", "machine/check"}}, nil},
		{"the checker importing the run store", map[string][]string{"machine/check": {"machine", "machine/runstore"}},
			[]string{"machine/check -> machine/runstore"}},
		{"an exporter importing lpp", map[string][]string{"machine/export": {"machine/lpp"}},
			[]string{"machine/export -> machine/lpp"}},
		{"a package with no list", map[string][]string{"machine/lpp": {"machine/export"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, strayImports(tt.g))
		})
	}
}

func TestReadmeDrawsThePackageGraphOfGoList(t *testing.T) {
	want := mermaid(moduleGraph(parseLines(goList(t, `{{.ImportPath}} {{join .Imports " "}}`, "./..."))))
	path := filepath.Join(root(t), "README.md")
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	before, got, after, err := section(string(src))
	require.NoError(t, err)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(before+graphBegin+"\n"+want+graphEnd+after), 0o644))
		return
	}
	assert.Equal(t, want, got, "README.md's package graph is not the one go list gives; "+
		"run `go test ./internal/layout -update` (or paste):\n%s", want)
}

func TestViolationsFindsAForbiddenDependencyOfAMachinePackage(t *testing.T) {
	tests := []struct {
		name string
		deps map[string][]string
		want []string
	}{
		{"clean", map[string][]string{module + "/machine": {"fmt", module + "/internal/fsx"}}, nil},
		{"actions", map[string][]string{module + "/machine/check": {module + "/actions"}},
			[]string{module + "/machine/check -> " + module + "/actions"}},
		{"the Skills Agent's actions", map[string][]string{module + "/machine/validate": {module + "/actions/agent"}},
			[]string{module + "/machine/validate -> " + module + "/actions/agent"}},
		{"a sub-package of gateway", map[string][]string{module + "/machine": {module + "/gateway/sandbox"}},
			[]string{module + "/machine -> " + module + "/gateway/sandbox"}},
		{"langchaingo", map[string][]string{module + "/machine/lpp": {"github.com/tmc/langchaingo/llms"}},
			[]string{module + "/machine/lpp -> github.com/tmc/langchaingo/llms"}},
		{"a name that only starts like skills", map[string][]string{module + "/machine": {module + "/skillsx"}}, nil},
		{"outside machine/", map[string][]string{module + "/cmd/lppctl": {module + "/actions"}}, nil},
		{"machinery is not machine/", map[string][]string{module + "/machinery": {module + "/actions"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, violations(tt.deps))
		})
	}
}

func TestMermaidDrawsSortedNodesAndEdgesOfTheModuleOnly(t *testing.T) {
	g := moduleGraph(map[string][]string{
		module + "/machine/lpp":  {"fmt", module + "/machine"},
		module + "/machine":      {module + "/internal/fsx", module + "/internal/layout"},
		module + "/internal/fsx": nil,
		module + "/" + self:      nil,
		"golang.org/x/other":     {module + "/machine"},
	})
	want := "```mermaid\nflowchart LR\n" +
		"  internal_fsx[\"internal/fsx\"]\n" +
		"  machine[\"machine\"]\n" +
		"  machine_lpp[\"machine/lpp\"]\n" +
		"  machine --> internal_fsx\n" +
		"  machine_lpp --> machine\n" +
		"```\n"
	assert.Equal(t, want, mermaid(g))
}

func TestSectionSaysWhereTheMarkersAreMissing(t *testing.T) {
	_, _, _, err := section("# README\nno graph here\n")
	require.EqualError(t, err, `cannot find "`+graphBegin+`" in README.md: put the markers around the flowchart of the Layout section`)
	_, _, _, err = section(graphBegin + "\nflowchart\n")
	require.EqualError(t, err, `cannot find "`+graphEnd+`" after "`+graphBegin+`" in README.md`)
}
