package main

import (
	"fmt"
	"html"
	"strings"
)

// The chart of `lppctl eval --chart FILE.svg`: hand-written SVG, one panel
// per measure, one bar per arm (its mean, labelled), the min–max spread of
// the runs as a whisker. Each panel has its own scale (0 to the largest
// value shown; 0–100 for the shares). Bars carry class="bar", data-arm,
// data-metric and data-value, whiskers class="spread" with data-min and
// data-max, so that tools (and tests) can read the chart back.

// chartMetric is one panel.
type chartMetric struct {
	key, title string
	percent    bool
	value      func(evalSummary) (mean float64, sp *spread)
	format     string
}

var chartMetrics = []chartMetric{
	{key: "pass_rate", title: "Pass rate (%)", percent: true, format: "%.0f%%",
		value: func(s evalSummary) (float64, *spread) { return s.PassRate * 100, nil }},
	{key: "first_try", title: "First try (% of steps)", percent: true, format: "%.0f%%",
		value: func(s evalSummary) (float64, *spread) { return s.FirstTryRate * 100, nil }},
	{key: "retries", title: "Retries per run", format: "%.1f",
		value: func(s evalSummary) (float64, *spread) { return s.Retries.Mean, &s.Retries }},
	{key: "human", title: "Needed a person", format: "%.1f",
		value: func(s evalSummary) (float64, *spread) { return s.Human.Mean, &s.Human }},
	{key: "tokens", title: "Tokens per run", format: "%.0f",
		value: func(s evalSummary) (float64, *spread) { return s.Tokens.Mean, &s.Tokens }},
	{key: "wall_seconds", title: "Wall time (s)", format: "%.2f",
		value: func(s evalSummary) (float64, *spread) { return s.WallSeconds.Mean, &s.WallSeconds }},
}

// Chart geometry.
const (
	chartPanelW = 170
	chartTop    = 90  // the plot area's top
	chartPlotH  = 180 // the plot area's height
	chartBarW   = 44
	chartH      = chartTop + chartPlotH + 50
)

// armColors colour the bars of each arm.
var armColors = map[string]string{armOn: "#2b7bb9", armOff: "#d9822b"}

// evalChart draws rep's summaries as an SVG document.
func evalChart(rep *evalReport) string {
	width := chartPanelW * len(chartMetrics)
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">
`, width, chartH, width, chartH)
	fmt.Fprintf(&b, `<title>lppctl eval: %s on %s</title>
<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>
<text x="10" y="20" font-size="14" font-weight="bold">lppctl eval — %s on %s, %d run(s) per arm</text>
`, esc(rep.Spec), esc(rep.Skill), width, chartH, esc(rep.Spec), esc(rep.Skill), rep.RunsPerArm)
	for i, a := range rep.Arms {
		x := 10 + i*150
		fmt.Fprintf(&b, `<rect class="legend" x="%d" y="32" width="12" height="12" fill="%s"/><text x="%d" y="43">library %s</text>
`, x, armColor(a.Arm), x+18, esc(a.Arm))
	}
	for p, m := range chartMetrics {
		x0 := p * chartPanelW
		top := 0.0
		for _, a := range rep.Arms {
			mean, sp := m.value(a.Summary)
			top = max(top, mean)
			if sp != nil {
				top = max(top, sp.Max)
			}
		}
		if m.percent {
			top = 100
		}
		if top <= 0 {
			top = 1
		}
		base := chartTop + chartPlotH
		fmt.Fprintf(&b, `<g class="panel" data-metric="%s" data-scale="%g">
<text x="%d" y="%d" text-anchor="middle" font-weight="bold">%s</text>
<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333333"/>
`, m.key, top, x0+chartPanelW/2, chartTop-24, esc(m.title), x0+10, base, x0+chartPanelW-10, base)
		slot := (chartPanelW - 20) / max(len(rep.Arms), 1)
		for i, a := range rep.Arms {
			mean, sp := m.value(a.Summary)
			h := mean / top * chartPlotH
			bx := x0 + 10 + i*slot + (slot-chartBarW)/2
			fmt.Fprintf(&b, `<rect class="bar" data-arm="%s" data-metric="%s" data-value="%g" x="%d" y="%.2f" width="%d" height="%.2f" fill="%s"/>
`, esc(a.Arm), m.key, mean, bx, float64(base)-h, chartBarW, h, armColor(a.Arm))
			fmt.Fprintf(&b, `<text x="%d" y="%.2f" text-anchor="middle">%s</text>
`, bx+chartBarW/2, float64(base)-h-4, esc(fmt.Sprintf(m.format, mean)))
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>
`, bx+chartBarW/2, base+16, esc(a.Arm))
			if sp != nil && sp.Min != sp.Max {
				cx := bx + chartBarW/2
				y1, y2 := float64(base)-sp.Max/top*chartPlotH, float64(base)-sp.Min/top*chartPlotH
				fmt.Fprintf(&b, `<line class="spread" data-arm="%s" data-metric="%s" data-min="%g" data-max="%g" x1="%d" y1="%.2f" x2="%d" y2="%.2f" stroke="#000000"/>
`, esc(a.Arm), m.key, sp.Min, sp.Max, cx, y1, cx, y2)
			}
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func armColor(arm string) string {
	if c, ok := armColors[arm]; ok {
		return c
	}
	return "#888888"
}

func esc(s string) string { return html.EscapeString(s) }
