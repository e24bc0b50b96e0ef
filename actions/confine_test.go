package actions

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/actions/replyschema"
	"github.com/lppctl/lppctl/internal/testenv"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/validate"
)

// keyText looks like a private key; its body must never reach a report.
const keyText = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nKEYBODYKEYBODYKEYBODY\n-----END OPENSSH PRIVATE KEY-----\n"

// keyMarkers are pieces of keyText no report may hold.
var keyMarkers = []string{"KEYBODY", "b3BlbnNzaC1rZXktdjE", "BEGIN OPENSSH"}

// hostileSpec is a model-written spec whose files name KEY in every way a
// spec can name a file.
const hostileSpec = `lpp: 1
name: demo
context:
  out: {type: string, default: ""}
initial: gen
states:
  gen:
    do: llm.generate
    with: {prompt: PROMPT, schema: SCHEMA, output: out}
    next: [child]
  child:
    do: spec.run
    with: {spec: CHILD}
    next: [done]
  done: {final: true}
`

// TestModelWrittenSpecsCannotReadOutsideTheRoot: a model-written spec that
// names a file outside the project root (absolute, "..", a link) or a file
// that is not a spec of ours as a child spec is refused, and the report the
// contractor sends back to the model (spec.sandbox's, spec.check's, the
// validation diagnostics) carries nothing of the file.
func TestModelWrittenSpecsCannotReadOutsideTheRoot(t *testing.T) {
	outside := t.TempDir()
	key := filepath.Join(outside, "id_ed25519")
	require.NoError(t, os.WriteFile(key, []byte(keyText), 0o600))
	tests := []struct {
		name                  string
		prompt, schema, child string
		link                  bool // gen/demo/p.md is a link to the key
		want                  []string
	}{
		{
			name: "absolute paths", prompt: key, schema: key, child: key,
			want: []string{`file "` + key + `" is outside the project root`},
		},
		{
			name: "climbing out", prompt: "../../../../../../../../.." + key, schema: "../../../../../../../../.." + key, child: "../../../../../../../../.." + key,
			want: []string{`is outside the project root`},
		},
		{
			name: "a link out", prompt: "p.md", schema: "p.md", child: "p.md", link: true,
			want: []string{`leads out of the project root through a link`},
		},
		{
			name: "a key in a plain file inside the root as a child spec and a schema", prompt: "p.md", schema: "inside.txt", child: "inside.txt",
			want: []string{`it is not a spec (a YAML mapping with a states key); its content is not shown`},
		},
		{
			name: "a hidden key inside the root as the prompt, the schema and the child spec", prompt: "inside.pem", schema: "inside.pem", child: "inside.pem",
			want: []string{
				`demo.yaml:9:20: error: parameter "prompt" of action "llm.generate": file "inside.pem" is hidden from the model: it matches the hidden path pattern "*.pem" (hidden_paths in the gateway policy), and a file a spec names is sent to the model`,
				`demo.yaml:9:40: error: parameter "schema" of action "llm.generate": cannot read schema file gen/demo/inside.pem: file "inside.pem" is hidden from the model`,
				`demo.yaml:13:18: error: parameter "spec" of action "spec.run": file "inside.pem" is hidden from the model`,
				`= ` + hideHint,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := strings.NewReplacer("PROMPT", tt.prompt, "SCHEMA", tt.schema, "CHILD", tt.child).Replace(hostileSpec)
			root := sandboxProject(t, map[string]string{"demo.yaml": spec, "inside.pem": keyText, "inside.txt": keyText, "p.md": "hello\n"})
			if tt.link {
				p := filepath.Join(root, "gen", "demo", "p.md")
				require.NoError(t, os.Remove(p))
				require.NoError(t, os.Symlink(key, p))
			}
			var reports []string

			// spec.sandbox: the contractor's validating step.
			d := &Deps{Root: root}
			res, err := d.sandbox(context.Background(), sandboxJob{dir: "gen/demo", spec: "demo.yaml", as: "skills/demo", placeholders: true})
			require.NoError(t, err)
			assert.False(t, res.ok)
			reports = append(reports, res.report, res.summary)

			// Validation and the checker on the project itself (lppctl validate, spec.check).
			reg := machine.NewBuiltinRegistry()
			require.NoError(t, Register(reg, &Deps{Root: root}))
			path := filepath.Join(root, "gen", "demo", "demo.yaml")
			s, diags := validate.Check(path, []byte(spec), reg, validate.WithRoot(root))
			if s != nil {
				diags = append(diags, CheckSpec(s, reg, CheckOptions{Root: root, SpecDir: filepath.Dir(path)})...)
			}
			assert.True(t, diags.HasErrors())
			reports = append(reports, diags.PrettyAll([]byte(spec)))

			all := strings.Join(reports, "\n")
			for _, w := range tt.want {
				assert.Contains(t, all, w)
			}
			for _, m := range keyMarkers {
				assert.NotContains(t, all, m)
			}
		})
	}
}

// TestSpecRunRefusesFilesOutsideTheRoot: at run time too, spec.run and
// llm.generate's templates and schemas stay inside the root.
func TestSpecRunRefusesFilesOutsideTheRoot(t *testing.T) {
	outside := t.TempDir()
	key := filepath.Join(outside, "id_ed25519")
	require.NoError(t, os.WriteFile(key, []byte(keyText), 0o600))
	p := newProject(t, map[string]string{"inside.pem": keyText, "inside.txt": keyText})
	d := p.deps(".", "")

	for _, tt := range []struct{ child, want string }{
		{key, `cannot run child spec: file "` + key + `" is outside the project root`},
		{"inside.txt", "cannot run child spec inside.txt: it is not a spec (a YAML mapping with a states key); its content is not shown"},
		{"inside.pem", `cannot run child spec inside.pem: file "inside.pem" is hidden from the model: it matches the hidden path pattern "*.pem" (hidden_paths in the gateway policy), and a file a spec names is sent to the model`},
	} {
		src := "lpp: 1\nname: parent\ninitial: child\nstates:\n  child:\n    do: spec.run\n    with: {spec: " + tt.child + "}\n    next: [done]\n  done: {final: true}\n"
		reg := machine.NewBuiltinRegistry()
		require.NoError(t, Register(reg, d))
		spec, diags := validate.Check(filepath.Join(p.root, "parent.yaml"), []byte(src), reg, validate.WithRoot(p.root), validate.WithoutFiles())
		require.False(t, diags.HasErrors(), "%v", diags)
		m, err := machine.Compile(spec, reg)
		require.NoError(t, err)
		r, err := m.NewRun(nil)
		require.NoError(t, err)
		err = r.Run(context.Background())
		require.Error(t, err)
		assert.Contains(t, err.Error(), tt.want)
		for _, mk := range keyMarkers {
			assert.NotContains(t, err.Error(), mk)
		}
	}

	_, err := replyschema.Load(key, p.root, p.root, namedReader(nil, p.root, p.root))
	require.Error(t, err)
	assert.Equal(t, `cannot read schema: file "`+key+`" is outside the project root`, err.Error())

	_, err = d.FindTemplate(key)
	require.Error(t, err)
	assert.Equal(t, `cannot use prompt template: file "`+key+`" is outside the project root`, err.Error())
}

// TestSpecSandboxRunsScriptsConfined: a dry run's model-written script can
// neither read the home's keys nor write outside the throw-away copy, and
// the report sent to the model carries nothing of them.
func TestSpecSandboxRunsScriptsConfined(t *testing.T) {
	testenv.Python(t)
	if err := sandboxAvailableForTest(); err != nil {
		t.Skip(err)
	}
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte(keyText), 0o600))
	t.Setenv("OPENAI_API_KEY", "sk-parent-secret")
	script := "import json, os, sys\nd = json.load(sys.stdin)\nleak = ''\nfor p in ['" + home + "/.ssh/id_ed25519', '/proc/" + strconv.Itoa(os.Getpid()) + "/environ']:\n    try:\n        leak += open(p).read()\n    except OSError as e:\n        leak += type(e).__name__ + ' '\ntry:\n    open('" + home + "/PWNED', 'w').write('x')\nexcept OSError as e:\n    leak += 'write:' + type(e).__name__\nsys.exit(leak)\n"
	root := sandboxProject(t, map[string]string{"demo.yaml": sandboxSpec, "scripts/count.py": script})
	d := &Deps{Root: root}
	res, err := d.sandbox(context.Background(), sandboxJob{dir: "gen/demo", spec: "demo.yaml", as: "skills/demo", run: true})
	require.NoError(t, err)
	assert.False(t, res.ok)
	assert.Contains(t, res.report, "PermissionError PermissionError write:PermissionError")
	for _, m := range append(keyMarkers, "sk-parent-secret") {
		assert.NotContains(t, res.report, m)
	}
	_, err = os.Stat(filepath.Join(home, "PWNED"))
	assert.True(t, os.IsNotExist(err))
}
