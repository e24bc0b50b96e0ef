package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/skills"
	"github.com/lppctl/lppctl/skills/mcpserver"
)

// mcpCommand serves the skill library to MCP clients: lppctl mcp serve.
func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve the skill library over the Model Context Protocol",
		Subcommands: []*cli.Command{
			{
				Name:  "serve",
				Usage: "run the MCP server (stdio, or streamable HTTP with --http)",
				Description: `Exposes the tools add_skill, update_skill, remove_skill, search_skills and
list_skills over the skill library. By default it speaks MCP on stdin/stdout
and exits when stdin closes. With --http it serves streamable HTTP on a
loopback address (127.0.0.1, ::1 or localhost) until interrupted; another
address needs --allow-non-loopback (the server has no authentication: anyone
who can connect can change the library).`,
				Flags: append(libraryFlags(),
					&cli.StringFlag{Name: "http", Usage: "serve streamable HTTP on `ADDR` (e.g. 127.0.0.1:8765) instead of stdio"},
					&cli.BoolFlag{Name: "allow-non-loopback", Usage: "let --http listen on an address other than loopback (no authentication: anyone who can connect can change the library)"},
				),
				Action: mcpServe,
			},
		},
	}
}

func mcpServe(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("mcp serve takes no arguments")
	}
	addr := c.String("http")
	anyAddr := c.Bool("allow-non-loopback")
	if anyAddr && addr == "" {
		return usageErrorf("--allow-non-loopback goes with --http ADDR")
	}
	if addr != "" && !anyAddr {
		if err := mcpserver.CheckLoopback(addr); errors.Is(err, mcpserver.ErrNotLoopback) {
			return withCode(exitUsage, fmt.Errorf("%w; to listen there anyway, add --allow-non-loopback (the server has no authentication: anyone who can connect can change the library)", err))
		} else if err != nil {
			return withCode(exitUsage, err)
		}
	}
	opts, err := libraryOptions(c)
	if err != nil {
		return err
	}
	// A broken library file does not stop the server: it says so here, and
	// every tool says so until the file is fixed (by hand, while it runs).
	lib := skills.OpenUnchecked(libraryPath(c), opts...)
	if _, err := lib.Count(); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "lppctl: warning: %v (the tools report this until the file is fixed)\n", err)
	}
	srv := mcpserver.New(lib, version)
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if addr != "" {
		return mcpserver.ServeHTTPAnyAddress(ctx, srv, addr, func(a net.Addr) {
			fmt.Fprintf(c.App.ErrWriter, "lppctl: MCP server on http://%s (library %s)\n", a, lib.Path())
		})
	}
	return mcpserver.ServeStdio(ctx, srv, c.App.Reader, c.App.Writer, c.App.ErrWriter)
}
