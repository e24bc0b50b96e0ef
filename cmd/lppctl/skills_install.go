package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/lpp"
	"github.com/lppctl/lppctl/machine/validate"
)

// skillNameRE is what a skill folder's name must look like to be installed.
var skillNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

func skillsInstallCommand() *cli.Command {
	return &cli.Command{
		Name:      "install",
		Usage:     "validate a finished skill folder and copy it into skills/NAME",
		ArgsUsage: "DIR",
		Description: "Copies the skill folder DIR (inside the project root, e.g. output/contractor/word_stats)\n" +
			"into skills/NAME, NAME being DIR's last component. The folder must hold skills.md; its\n" +
			"spec NAME.yaml (or L++ blueprint NAME.json), when there is one, is validated as it will\n" +
			"be installed (its scripts are named skills/NAME/scripts/...) before anything under\n" +
			"skills/ changes; then one rename puts it in place. An invalid skill is not installed\n" +
			"(exit 3). An existing skills/NAME is refused unless --force, which replaces it in one\n" +
			"step. The skill is marked generated: its scripts run in the OS sandbox.\n" +
			"Then: lppctl run --spec specs/skills_agent.yaml --skill skills/NAME",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "replace an installed skill of the same name"},
			&cli.StringFlag{Name: "root", Usage: "the project root `DIR` (default: the current directory or the nearest folder above it holding config/tools_config.yaml, as run finds it)"},
		},
		Action: skillsInstall,
	}
}

func skillsInstall(c *cli.Context) error {
	arg, err := oneArg(c, "skill folder (e.g. output/contractor/NAME)")
	if err != nil {
		return err
	}
	root, err := filepath.Abs(cmp.Or(c.String("root"), findProjectRoot("."))) // as run finds it
	if err != nil {
		return fmt.Errorf("cannot install skill: %w", err)
	}
	src, name, err := installSource(root, arg)
	if err != nil {
		return err
	}
	dst := filepath.Join(root, "skills", name)
	if _, err := os.Lstat(dst); err == nil && !c.Bool("force") {
		return usageErrorf("cannot install skill %s: skills/%s exists; give --force to replace it", name, name)
	}
	if err := os.MkdirAll(filepath.Join(root, "skills"), 0o755); err != nil {
		return fmt.Errorf("cannot install skill: %w", err)
	}
	removeStaleStaging(filepath.Join(root, "skills"))
	// Stage the new skill beside skills/NAME (same file system), validate it
	// there as installed, and only then put it in place with one rename: a
	// crash or a kill at any point leaves the old skill or the new valid one
	// (and a staging folder the next install removes).
	staging, err := os.MkdirTemp(filepath.Join(root, "skills"), "."+name+stagingInfix)
	if err != nil {
		return fmt.Errorf("cannot install skill: %w", err)
	}
	defer os.RemoveAll(staging)
	n, err := copySkill(src, staging)
	if err != nil {
		return fmt.Errorf("cannot install skill %s: %w", name, err)
	}
	// An installed skill is model-written code: its scripts run in the OS
	// sandbox (safe_py_runner.sandbox: generated, docs/security.md).
	if err := os.WriteFile(filepath.Join(staging, gateway.GeneratedMarker), []byte("installed by lppctl skills install: its scripts run in the OS sandbox\n"), 0o644); err != nil {
		return fmt.Errorf("cannot install skill %s: %w", name, err)
	}
	if err := validateStaged(c, root, name, staging); err != nil {
		return err
	}
	if err := syncTree(staging); err != nil {
		return fmt.Errorf("cannot install skill %s: %w", name, err)
	}
	if _, err := os.Lstat(dst); err == nil {
		// Swap the two folders in one step; the old one is then at staging
		// and removed with it.
		if err := exchange(staging, dst); err != nil {
			return fmt.Errorf("cannot install skill %s: cannot replace the installed one: %w", name, err)
		}
	} else if err := os.Rename(staging, dst); err != nil {
		return fmt.Errorf("cannot install skill %s: %w", name, err)
	}
	syncDir(filepath.Join(root, "skills"))
	fmt.Fprintf(c.App.Writer, "installed %s into skills/%s (%d files)\nrun it with: lppctl run --spec specs/skills_agent.yaml --skill skills/%s\n", relTo(root, src), name, n, name)
	return nil
}

// installSource checks that arg is a skill folder inside root and returns
// its absolute path and the skill's name.
func installSource(root, arg string) (string, string, error) {
	src := arg
	if _, err := os.Stat(src); err != nil && !filepath.IsAbs(src) {
		src = filepath.Join(root, src) // not found from the current directory: from the root
	}
	if abs, err := filepath.Abs(src); err == nil {
		src = abs
	}
	src = filepath.Clean(src)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", "", fmt.Errorf("cannot install skill: %w", err)
	}
	real, err := filepath.EvalSymlinks(src)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", "", usageErrorf("cannot install skill: %s does not exist", arg)
		}
		return "", "", fmt.Errorf("cannot install skill: %w", err)
	}
	r, err := filepath.Rel(realRoot, real)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", "", usageErrorf("cannot install skill: %s is outside the project root %s; install a folder inside it (e.g. output/contractor/NAME)", arg, root)
	}
	if first := strings.Split(filepath.ToSlash(r), "/")[0]; first == "skills" {
		return "", "", usageErrorf("cannot install skill: %s is already under skills/", arg)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return "", "", usageErrorf("cannot install skill: %s is not a folder", arg)
	}
	name := filepath.Base(real)
	if !skillNameRE.MatchString(name) {
		return "", "", usageErrorf("cannot install skill: the folder's name %q is not a skill name (lower case letters, digits and _, starting with a letter)", name)
	}
	if _, err := os.Stat(filepath.Join(real, "skills.md")); err != nil {
		return "", "", withCode(exitInvalidSpec, fmt.Errorf("cannot install skill %s: %s has no skills.md (the Skills Agent plans from it); finish the skill first", name, arg))
	}
	if other := otherSpec(real, name); other != "" {
		stem := strings.TrimSuffix(other, filepath.Ext(other))
		return "", "", withCode(exitInvalidSpec, fmt.Errorf("cannot install skill %s: %s holds %s, the spec of skill %s, not %s.yaml: installed as skills/%s it would name its files under skills/%s/; install it from a folder named %s (or rename the spec)", name, arg, other, stem, name, name, stem, stem))
	}
	return real, name, nil
}

// otherSpec returns the name of a spec at the top of the folder dir (a
// .yaml with an lpp: key, or an L++ blueprint .json) when the folder holds
// none named after it, name; "" otherwise.
func otherSpec(dir, name string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	other := ""
	for _, e := range entries {
		n := e.Name()
		if !e.Type().IsRegular() || n == "demo.yaml" || strings.HasSuffix(n, ".lppctl.yaml") {
			continue
		}
		ext := filepath.Ext(n)
		if ext != ".yaml" && ext != ".json" {
			continue
		}
		if n == name+ext {
			return ""
		}
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			continue
		}
		if ext == ".json" && lpp.HasSchema(b) || ext == ".yaml" && specKeyRE.Match(b) {
			if other == "" {
				other = n
			}
		}
	}
	return other
}

// specKeyRE finds the lpp: key that starts an lppctl spec.
var specKeyRE = regexp.MustCompile(`(?m)^lpp:\s*1\s*$`)

// validateInstalled validates skills/NAME/NAME.yaml, or the L++ blueprint
// skills/NAME/NAME.json (with its compute mapping beside it), when there is
// one, with root as the project root, printing its diagnostics.
func validateInstalled(c *cli.Context, root, shown, name string) error {
	var path string
	var src []byte
	for _, ext := range []string{".yaml", ".json"} {
		p := filepath.Join(root, "skills", name, name+ext)
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("cannot install skill %s: %w", name, err)
		}
		if ext == ".json" && !lpp.HasSchema(b) {
			continue // a data file, not a blueprint
		}
		path, src = p, b
		break
	}
	if path == "" {
		return nil
	}
	reg := machine.NewBuiltinRegistry()
	if err := actions.Register(reg, &actions.Deps{Root: root}, actionSets...); err != nil {
		return err
	}
	diags, err := checkSpecFile(path, src, reg, root, validate.WithRoot(root), validate.WithSpecDir(filepath.Dir(path)))
	if err != nil {
		return fmt.Errorf("cannot install skill %s: %w", name, err)
	}
	if !diags.HasErrors() {
		return nil
	}
	for i := range diags {
		if rel, err := filepath.Rel(root, diags[i].File); err == nil && !strings.HasPrefix(rel, "..") {
			diags[i].File = filepath.Join(shown, rel) // name the project's file, not the throw-away copy's
		}
	}
	fmt.Fprintf(c.App.Writer, "%s\n\n", diags.PrettyAll(src))
	return withCode(exitInvalidSpec, fmt.Errorf("cannot install skill %s: its spec is invalid where it would be installed (%s); nothing was installed", name, countDiags(diags)))
}

// copySkill copies the regular files of src into dst (links, hidden files
// and __pycache__ left out) and returns how many it copied.
func copySkill(src, dst string) (int, error) {
	n := 0
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(src, p)
		if r != "." && (strings.HasPrefix(e.Name(), ".") || e.Name() == "__pycache__") {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, r)
		if e.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !e.Type().IsRegular() {
			return nil
		}
		n++
		return copyRegular(p, target)
	})
	return n, err
}

func copyRegular(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// stagingInfix names the staging folders of skills install:
// skills/.NAME.install-RANDOM.
const stagingInfix = ".install-"

// removeStaleStaging removes the staging folders an install that was
// killed left in skills/.
func removeStaleStaging(skillsDir string) {
	ents, err := os.ReadDir(skillsDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), stagingInfix) {
			_ = os.RemoveAll(filepath.Join(skillsDir, e.Name()))
		}
	}
}

// validateStaged validates the staged skill as it will be installed: in a
// throw-away root holding it as skills/NAME beside copies of the project's
// policy, scripts/ and specs/, so that nothing in skills/ changes before the
// skill is known valid. Diagnostics name the project's paths.
func validateStaged(c *cli.Context, root, name, staging string) error {
	tmp, err := os.MkdirTemp("", "lppctl-install-")
	if err != nil {
		return fmt.Errorf("cannot install skill %s: %w", name, err)
	}
	defer os.RemoveAll(tmp)
	if _, err := copySkill(staging, filepath.Join(tmp, "skills", name)); err != nil {
		return fmt.Errorf("cannot install skill %s: %w", name, err)
	}
	for _, d := range []string{"config", "scripts", "specs"} {
		from := filepath.Join(root, d)
		if fi, err := os.Stat(from); err != nil || !fi.IsDir() {
			continue
		}
		if _, err := copySkill(from, filepath.Join(tmp, d)); err != nil {
			return fmt.Errorf("cannot install skill %s: cannot copy %s for its validation: %w", name, d, err)
		}
	}
	return validateInstalled(c, tmp, root, name)
}

// syncTree flushes every file and folder under dir to disk, so the rename
// that installs it never exposes a folder whose files are not written yet.
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
}

// syncDir flushes a folder's entries (best effort).
func syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		_ = f.Sync()
		f.Close()
	}
}
