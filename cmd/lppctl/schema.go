package main

import (
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/urfave/cli/v2"
)

func schemaCommand() *cli.Command {
	return &cli.Command{
		Name:  "schema",
		Usage: "print the JSON Schema of the spec format (for editors)",
		Description: "Prints the JSON Schema (draft-07) that docs/spec.schema.json holds, with the names of\n" +
			"the registered actions (`lppctl actions`) under `do:`. Point\n" +
			"yaml-language-server at it with `# yaml-language-server: $schema=PATH` on a spec's first line.",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf("schema takes no arguments")
			}
			reg, err := newRegistry(c)
			if err != nil {
				return err
			}
			_, err = c.App.Writer.Write(mspec.JSONSchemaFor(reg))
			return err
		},
	}
}
