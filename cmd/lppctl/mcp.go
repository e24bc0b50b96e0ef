package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

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
loopback address (127.0.0.1, ::1 or localhost only) until interrupted.`,
				Flags: append(libraryFlags(),
					&cli.StringFlag{Name: "http", Usage: "serve streamable HTTP on `ADDR` (e.g. 127.0.0.1:8765) instead of stdio"},
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
	if addr != "" {
		if err := mcpserver.CheckLoopback(addr); err != nil {
			return withCode(exitUsage, err)
		}
	}
	lib, err := openLibrary(c)
	if err != nil {
		return err
	}
	srv := mcpserver.New(lib, version)
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if addr != "" {
		return mcpserver.ServeHTTP(ctx, srv, addr, func(a net.Addr) {
			fmt.Fprintf(c.App.ErrWriter, "lppctl: MCP server on http://%s (library %s)\n", a, lib.Path())
		})
	}
	f := newInFlight()
	out := &syncWriter{w: c.App.Writer}
	t := &mcp.IOTransport{Reader: newStdioFilter(c.App.Reader, out, c.App.ErrWriter, f), Writer: &countingWriter{w: out, f: f}}
	err = srv.Run(ctx, t)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil // the client went away: a normal end
	}
	return fmt.Errorf("cannot serve MCP: %w", err)
}
