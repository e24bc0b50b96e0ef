// Command gen installs the UI's third-party code for embedding (go generate
// ./ui): npm ci of ui/assets/package-lock.json (the pinned Mermaid) in a
// temporary folder, then a copy of mermaid.min.js into ui/static/vendor,
// which is git-ignored. It does nothing when that copy is newer than the lock.
// When npm is missing or fails (no network), it says so and exits 0: the
// build goes on, and the UI draws diagrams with Graphviz or shows their source.
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "ui: warning: %v; building without Mermaid (the UI draws diagrams with Graphviz's dot when installed, else shows their source)\n", err)
	}
}

func run() error {
	// go generate runs in the package's directory, ui/.
	dst := filepath.Join("static", "vendor", "mermaid.min.js")
	lock := filepath.Join("assets", "package-lock.json")
	if newer(dst, lock) {
		return nil // installed from the lock file as it is
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("cannot install Mermaid: npm is not installed")
	}
	// npm works in a temporary folder: a node_modules inside the module
	// would be walked by every go ./... pattern.
	tmp, err := os.MkdirTemp("", "lppctl-ui-npm-")
	if err != nil {
		return fmt.Errorf("cannot install Mermaid: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, name := range []string{"package.json", "package-lock.json"} {
		if err := copyFile(filepath.Join("assets", name), filepath.Join(tmp, name)); err != nil {
			return fmt.Errorf("cannot install Mermaid: %w", err)
		}
	}
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cannot install Mermaid: npm ci with ui/assets/package-lock.json: %w", err)
	}
	if err := copyFile(filepath.Join(tmp, "node_modules", "mermaid", "dist", "mermaid.min.js"), dst); err != nil {
		return fmt.Errorf("cannot install Mermaid: %w", err)
	}
	fmt.Fprintf(os.Stderr, "ui: embedded %s\n", filepath.Join("ui", dst))
	return nil
}

// newer reports whether file exists and was written after ref.
func newer(file, ref string) bool {
	a, err := os.Stat(file)
	if err != nil {
		return false
	}
	b, err := os.Stat(ref)
	return err == nil && a.ModTime().After(b.ModTime())
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp := dst + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(tmp)
		return err
	}
	if err := out.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, dst)
}
