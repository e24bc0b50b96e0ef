package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/lppctl/lppctl/actions"
	"github.com/urfave/cli/v2"
)

func actionsCommand() *cli.Command {
	return &cli.Command{
		Name:  "actions",
		Usage: "list the actions a spec's do: can name, with their parameters",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the actions as JSON"},
		},
		Action: runActions,
	}
}

type jsonParam struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Required bool     `json:"required,omitempty"`
	Default  any      `json:"default,omitempty"`
	Doc      string   `json:"doc,omitempty"`
	Enum     []string `json:"enum,omitempty"`
	Format   string   `json:"format,omitempty"`
}

type jsonVar struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Doc  string `json:"doc,omitempty"`
}

type jsonAction struct {
	Name      string      `json:"name"`
	Doc       string      `json:"doc"`
	Signature string      `json:"signature"`
	Params    []jsonParam `json:"params"`
	Writes    []jsonVar   `json:"writes"`
	Needs     []string    `json:"needs,omitempty"`
	Provides  []string    `json:"provides,omitempty"`
	// WritesFrom says which variables an action whose writes depend on its
	// parameters writes (e.g. the one named by output).
	WritesFrom string `json:"writes_from,omitempty"`
}

func runActions(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("actions takes no arguments")
	}
	reg, err := newRegistry(c)
	if err != nil {
		return err
	}
	acts := reg.Actions()
	out := c.App.Writer
	if c.Bool("json") {
		list := make([]jsonAction, 0, len(acts))
		for _, a := range acts {
			ja := jsonAction{Name: a.Name, Doc: a.Doc, Signature: a.Signature(), Params: []jsonParam{}, Writes: []jsonVar{}, Needs: a.Needs, Provides: a.Provides, WritesFrom: actions.WritesDoc(a.Name)}
			for _, p := range a.Params {
				ja.Params = append(ja.Params, jsonParam{Name: p.Name, Type: string(p.Type), Required: p.Required, Default: p.Default, Doc: p.Doc, Enum: p.Enum, Format: string(p.Format)})
			}
			for _, w := range a.Writes {
				ja.Writes = append(ja.Writes, jsonVar{Name: w.Name, Type: string(w.Type), Doc: w.Doc})
			}
			list = append(list, ja)
		}
		return printJSONLines(out, list)
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, a := range acts {
		fmt.Fprintf(tw, "%s\t%s\n", a.Name, a.Doc)
		if len(a.Params) > 0 {
			fmt.Fprintf(tw, "\twith: %s\n", a.Signature())
		}
		if len(a.Writes) > 0 {
			ws := ""
			for i, w := range a.Writes {
				if i > 0 {
					ws += ", "
				}
				ws += w.Name + ": " + string(w.Type)
			}
			fmt.Fprintf(tw, "\twrites: %s\n", ws)
		}
		if w := actions.WritesDoc(a.Name); w != "" {
			fmt.Fprintf(tw, "\twrites: %s\n", w)
		}
		if len(a.Needs) > 0 {
			fmt.Fprintf(tw, "\tneeds in run memory: %s\n", strings.Join(a.Needs, ", "))
		}
		if len(a.Provides) > 0 {
			fmt.Fprintf(tw, "\tprovides in run memory: %s\n", strings.Join(a.Provides, ", "))
		}
	}
	return tw.Flush()
}
