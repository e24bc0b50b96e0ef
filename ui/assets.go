package ui

import (
	"embed"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"
)

// go generate ./ui installs the pinned Mermaid (ui/assets/package-lock.json)
// with npm ci in a temporary folder and copies its dist file to static/vendor
// (git-ignored), to be embedded. Without npm or the network it says so and leaves the UI without
// Mermaid: diagrams then come from Graphviz or as source.
//go:generate go run ./gen

// MermaidFile is where go generate puts the Mermaid library, in static/.
const MermaidFile = "vendor/mermaid.min.js"

//go:embed static templates
var assets embed.FS

func parseTemplates() (*template.Template, error) {
	t, err := template.New("ui").Funcs(template.FuncMap{
		"dur":     fmtDuration,
		"clock":   func(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") },
		"join":    strings.Join,
		"add":     func(a, b int) int { return a + b },
		"has":     slices.Contains[[]string],
		"json":    func(s string) template.HTML { return showJSON([]byte(s)) },
		"text":    showText,
		"formKey": formKey,
	}).ParseFS(assets, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("cannot parse the UI's templates: %w", err)
	}
	return t, nil
}

// fmtDuration rounds a duration for a table: ms below a minute.
func fmtDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Minute:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
