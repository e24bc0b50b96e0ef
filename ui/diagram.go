package ui

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/lppctl/lppctl/machine/export"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// diagram is a spec's diagram as the page draws it: Mermaid source that the
// page renders with the embedded library (strict security level), else an
// SVG that Graphviz drew on the server, else the source and a hint.
// maxDrawnStates is the most states a page draws.
const maxDrawnStates = 500

type diagram struct {
	Mermaid string        // Mermaid source, rendered by the page
	SVG     template.HTML // Graphviz's SVG
	Source  string        // shown as text when neither renders it
	Hint    string
	Current string // the state lit as current ("" for none)
	Failed  bool   // Current is where the run failed (lit red, not orange)
	Error   string
}

// Colours of the current state (the path's are machine.Export's green),
// and of the state a run failed in.
const (
	currentFill   = "#ffe08a"
	currentStroke = "#d35400"
	failedFill    = "#fee4e2"
	failedStroke  = "#b42318"
)

// drawRun draws a run's spec: its path, and where it stands lit as current,
// or as failed (class "failed", red) when failed says the run stopped there
// on an error.
func (s *Server) drawRun(ctx context.Context, spec *mspec.Spec, path []string, current string, failed bool) diagram {
	if !failed {
		return s.drawSpec(ctx, spec, path, current)
	}
	d := s.drawSpecAs(ctx, spec, "mermaid", path, "")
	d.Current, d.Failed = current, current != ""
	switch {
	case d.Mermaid != "":
		d.Mermaid += mermaidLit(d.Mermaid, current, "failed", failedFill, failedStroke)
	case d.SVG != "" || d.Source != "":
		// drawn again with the failed state's style
		src, err := export.Export(spec, "dot", export.ExportOptions{Path: path})
		if err != nil {
			return d
		}
		dot := dotLit(dotVisited(src, path, current), current, "failed", failedFill, failedStroke)
		if d.SVG != "" {
			if svg, err := s.runDot(ctx, dot); err == nil {
				d.SVG = template.HTML(svg) // #nosec: Graphviz's own output
			}
		} else {
			d.Source = string(dot)
		}
	}
	return d
}

// drawSpec draws spec with path highlighted and current lit.
func (s *Server) drawSpec(ctx context.Context, spec *mspec.Spec, path []string, current string) diagram {
	return s.drawSpecAs(ctx, spec, "mermaid", path, current)
}

// drawSpecAs is drawSpec in a Mermaid format of machine.Export: a
// "mermaid-flowchart" lights the path's transitions too, which a state
// diagram cannot. Graphviz's drawing lights both.
func (s *Server) drawSpecAs(ctx context.Context, spec *mspec.Spec, mermaidFormat string, path []string, current string) diagram {
	d := diagram{Current: current}
	if spec == nil {
		d.Error = "no spec to draw"
		return d
	}
	if n := len(spec.States); n > maxDrawnStates {
		// Laying out thousands of states takes Graphviz or the browser's
		// Mermaid longer than a page may take (a hostile spec would hang it).
		d.Hint = fmt.Sprintf("%s has %d states, more than the %d this page draws; lppctl export --format dot (or mermaid) writes its diagram.", filepath.Base(spec.File), n, maxDrawnStates)
		return d
	}
	opts := export.ExportOptions{Path: path}
	if s.mermaid {
		src, err := export.Export(spec, mermaidFormat, opts)
		if err != nil {
			d.Error = err.Error()
			return d
		}
		d.Mermaid = string(src) + mermaidCurrent(string(src), current)
		return d
	}
	src, err := export.Export(spec, "dot", opts)
	if err != nil {
		d.Error = err.Error()
		return d
	}
	dot := dotCurrent(dotVisited(src, path, current), current)
	if s.dot != "" {
		svg, err := s.runDot(ctx, dot)
		if err == nil {
			d.SVG = template.HTML(svg) // #nosec: Graphviz's own output; labels are escaped by dot
			return d
		}
		d.Hint = fmt.Sprintf("Graphviz could not draw it (%v); its DOT source:", err)
	} else {
		d.Hint = "This lppctl was built without the Mermaid library (go generate ./ui embeds it; it needs npm) and Graphviz's dot is not installed: here is the diagram's DOT source (lppctl export --format mermaid gives Mermaid)."
	}
	d.Source = string(dot)
	return d
}

var (
	stateAliasRE = regexp.MustCompile(`(?m)^    state "(.*)" as (\S+)$`)
	flowNodeRE   = regexp.MustCompile(`(?m)^    (\S+?)(?:\["|\(\(\(")([^"<]*)`)
)

// mermaidCurrent returns the lines that light the current state in a
// stateDiagram-v2 or flowchart that machine.Export wrote: its id is the
// state's name, or the alias of a `state "name" as id` line; in a flowchart,
// the id of the node labelled with the name.
func mermaidCurrent(src, current string) string {
	return mermaidLit(src, current, "current", currentFill, currentStroke)
}

// mermaidLit is mermaidCurrent with the class and colours given.
func mermaidLit(src, current, class, fill, stroke string) string {
	if current == "" {
		return ""
	}
	id := current
	if strings.HasPrefix(src, "flowchart") {
		id = ""
		for _, m := range flowNodeRE.FindAllStringSubmatch(src, -1) {
			if m[2] == current {
				id = m[1]
			}
		}
		if id == "" {
			return "" // a name the export shortened or escaped: not lit rather than wrong
		}
	}
	for _, m := range stateAliasRE.FindAllStringSubmatch(src, -1) {
		if m[1] == current {
			id = m[2]
		}
	}
	if !strings.Contains(src, " "+id+" ") && !strings.Contains(src, " "+id+"\n") {
		return "" // a name the export shortened or escaped: not lit rather than wrong
	}
	return fmt.Sprintf("    classDef %s fill:%s,stroke:%s,stroke-width:4px\n    class %s %s\n", class, fill, stroke, id, class)
}

// dotCurrent adds the current state's style to a Graphviz digraph: a later
// node statement adds to the node's attributes.
func dotCurrent(src []byte, current string) []byte {
	return dotLit(src, current, "current", currentFill, currentStroke)
}

// dotLit is dotCurrent with the class and colours given.
func dotLit(src []byte, current, class, fill, stroke string) []byte {
	if current == "" {
		return src
	}
	end := bytes.LastIndexByte(src, '}')
	if end < 0 {
		return src
	}
	line := fmt.Sprintf("    \"%s\" [class=%q, style=\"rounded,filled,bold\", fillcolor=%q, color=%q, penwidth=4];\n", dotEscape(current), class, fill, stroke)
	out := append([]byte{}, src[:end]...)
	out = append(out, line...)
	return append(out, src[end:]...)
}

// dotVisited gives the states of path other than current the SVG class
// "visited" (machine.Export colours them; the class names them in the SVG,
// as Mermaid's classDef does).
func dotVisited(src []byte, path []string, current string) []byte {
	end := bytes.LastIndexByte(src, '}')
	if end < 0 || len(path) == 0 {
		return src
	}
	out := append([]byte{}, src[:end]...)
	seen := map[string]bool{current: true}
	for _, name := range path {
		if seen[name] {
			continue
		}
		seen[name] = true
		out = fmt.Appendf(out, "    \"%s\" [class=\"visited\"];\n", dotEscape(name))
	}
	return append(out, src[end:]...)
}

// dotEscape escapes a name for a quoted DOT ID.
func dotEscape(s string) string { return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) }

// runDot renders DOT as SVG with Graphviz, within 10 s, and drops the XML
// prolog so that the SVG can sit inside the page.
func (s *Server) runDot(ctx context.Context, dot []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.dot, "-Tsvg")
	cmd.Stdin = bytes.NewReader(dot)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("dot: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	svg := out.Bytes()
	if i := bytes.Index(svg, []byte("<svg")); i >= 0 {
		svg = svg[i:]
	}
	return svg, nil
}
