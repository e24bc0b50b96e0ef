package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/internal/llmenv"
	"github.com/lppctl/lppctl/skills"
)

// skillsCommand manages the skill library: lppctl skills list|add|update|remove|search.
func skillsCommand() *cli.Command {
	return &cli.Command{
		Name:  "skills",
		Usage: "list, add, update, remove, search learned skills and show how they did",
		Description: `The skill library holds short, general principles learned from past runs,
as one JSON object keyed by skill name (default .lppctl/skills.json, or
$LPPCTL_SKILLS, or --library). Search ranks lexically (BM25) unless
--embeddings names a provider: openai[:model] (OPENAI_API_KEY, OPENAI_API_BASE)
or ollama[:model] (OLLAMA_HOST). Flags may come before or after the
arguments; "--" ends them, for a NAME or QUERY starting with "-".`,
		Subcommands: []*cli.Command{
			skillsInstallCommand(),
			{
				Name:   "list",
				Usage:  "list every skill, by name",
				Flags:  libraryFlags(),
				Action: skillsList,
			},
			{
				Name:      "add",
				Usage:     "add a skill (replacing one of the same name)",
				ArgsUsage: "NAME",
				Flags: append(libraryFlags(),
					&cli.StringFlag{Name: "principle", Aliases: []string{"p"}, Usage: "what to do and why (`TEXT`)", Required: true},
					&cli.StringFlag{Name: "when-to-apply", Aliases: []string{"w"}, Usage: "the situations in which it helps (`TEXT`)", Required: true},
				),
				Action: skillsAdd,
			},
			{
				Name:      "update",
				Usage:     "change a skill's name, principle or when-to-apply",
				ArgsUsage: "NAME",
				Flags: append(libraryFlags(),
					&cli.StringFlag{Name: "rename", Usage: "the skill's new `NAME`"},
					&cli.StringFlag{Name: "principle", Aliases: []string{"p"}, Usage: "the new principle (`TEXT`)"},
					&cli.StringFlag{Name: "when-to-apply", Aliases: []string{"w"}, Usage: "the new when-to-apply (`TEXT`)"},
				),
				Action: skillsUpdate,
			},
			{
				Name:      "remove",
				Usage:     "remove a skill",
				ArgsUsage: "NAME",
				Flags:     libraryFlags(),
				Action:    skillsRemove,
			},
			{
				Name:      "search",
				Usage:     "show the skills relevant to a query, best first (and record their use)",
				ArgsUsage: "QUERY...",
				Flags: append(libraryFlags(),
					&cli.IntFlag{Name: "k", Aliases: []string{"top-k"}, Value: 5, Usage: "return at most `N` skills (the N nearest with --embeddings; with BM25 skills scoring 0 are left out)"},
				),
				Action: skillsSearch,
			},
			skillsStatsCommand(),
		},
	}
}

// libraryFlags are the flags every skills (and mcp serve) subcommand takes.
func libraryFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "library", Aliases: []string{"l"}, EnvVars: []string{"LPPCTL_SKILLS"}, Usage: "the skill library `FILE` (default: ROOT/" + skills.DefaultLibraryPath + ", ROOT being the current directory or the nearest folder above it holding config/tools_config.yaml)"},
		&cli.StringFlag{Name: "embeddings", Value: "none", EnvVars: []string{"LPPCTL_EMBEDDINGS"}, Usage: "rank searches with `PROVIDER`: openai[:model], ollama[:model] or none (lexical)"},
		&cli.BoolFlag{Name: "json", Usage: "print JSON"},
	}
}

// openLibrary opens the library named by the flags, with its embedder.
func openLibrary(c *cli.Context) (*skills.Library, error) {
	opts, err := libraryOptions(c)
	if err != nil {
		return nil, err
	}
	return skills.Open(libraryPath(c), opts...)
}

// libraryPath is the skill library the skills commands and mcp serve
// work on: --library (or $LPPCTL_SKILLS), else the one a run started here
// uses, ROOT/.lppctl/skills.json, the root found upwards as run finds it
// (so `skills add` in a subfolder of the project adds to the library the
// agent reads, not to a new one there). It is named relative to the
// current folder.
func libraryPath(c *cli.Context) string {
	if c.IsSet("library") {
		return c.String("library")
	}
	root := findProjectRoot(".")
	if root == "." {
		return skills.DefaultLibraryPath
	}
	p := filepath.Join(root, skills.DefaultLibraryPath)
	if cwd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(cwd, p); err == nil {
			return rel
		}
	}
	return p
}

// libraryOptions are the library options the flags ask for (the embedder).
func libraryOptions(c *cli.Context) ([]skills.Option, error) {
	e, model, err := skills.NewEmbedder(c.String("embeddings"), os.Getenv)
	if errors.Is(err, skills.ErrInvalid) {
		return nil, withCode(exitUsage, err)
	}
	if err != nil {
		return nil, err
	}
	var opts []skills.Option
	if e != nil {
		// Embeddings requests are retried as model calls are: bounds
		// that cannot be read are refused as run refuses them.
		if _, err := llmenv.Read(os.Getenv); err != nil {
			return nil, withCode(exitUsage, err)
		}
		opts = append(opts, skills.WithEmbedder(e, model), skills.WithFallback(func(err error) {
			fmt.Fprintf(c.App.ErrWriter, "lppctl: warning: ranking with BM25: %v\n", err)
		}))
	}
	return opts, nil
}

// skillErr maps library errors to exit codes: invalid input is a usage error.
func skillErr(err error) error {
	if errors.Is(err, skills.ErrInvalid) {
		return withCode(exitUsage, err)
	}
	return err
}

// oneArg returns the single positional argument, refusing flags placed after it.
func oneArg(c *cli.Context, what string) (string, error) {
	if c.NArg() != 1 {
		return "", usageErrorf("%s takes one %s, got %d arguments", "skills "+c.Command.Name, what, c.NArg())
	}
	return c.Args().First(), nil
}

func skillsList(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("skills list takes no arguments")
	}
	lib, err := openLibrary(c)
	if err != nil {
		return err
	}
	list, err := lib.List()
	if err != nil {
		return err
	}
	if warn := skills.TwinsWarning(list); warn != "" {
		fmt.Fprintf(c.App.ErrWriter, "lppctl: warning: %s\n", strings.ReplaceAll(warn, "\n", "\nlppctl: warning: "))
	}
	w := c.App.Writer
	if c.Bool("json") {
		return printJSONLines(w, list)
	}
	if len(list) == 0 {
		fmt.Fprintf(w, "no skills in %s\n", lib.Path())
		return nil
	}
	for _, s := range list {
		printSkill(w, s)
	}
	return nil
}

func printSkill(w io.Writer, s skills.Skill) {
	fmt.Fprintf(w, "%s\n", s.Name)
	fmt.Fprintf(w, "  principle:     %s\n", indent(s.Principle))
	fmt.Fprintf(w, "  when to apply: %s\n", indent(s.WhenToApply))
	fmt.Fprintf(w, "  used %d times; created at iteration %d, last used at iteration %d\n", s.UsageCount, s.CreatedIteration, s.LastUsedIteration)
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n                 ") }

func skillsAdd(c *cli.Context) error {
	name, err := oneArg(c, "NAME")
	if err != nil {
		return err
	}
	lib, err := openLibrary(c)
	if err != nil {
		return err
	}
	it, err := lib.Iteration()
	if err != nil {
		return err
	}
	s := skills.Skill{Name: name, Principle: c.String("principle"), WhenToApply: c.String("when-to-apply"), CreatedIteration: it, LastUsedIteration: it}
	if err := lib.Add(s); err != nil {
		return skillErr(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, s)
	}
	fmt.Fprintf(c.App.Writer, "added skill %s\n", name)
	return nil
}

func skillsUpdate(c *cli.Context) error {
	name, err := oneArg(c, "NAME")
	if err != nil {
		return err
	}
	var u skills.Update
	if c.IsSet("rename") {
		v := c.String("rename")
		u.Name = &v
	}
	if c.IsSet("principle") {
		v := c.String("principle")
		u.Principle = &v
	}
	if c.IsSet("when-to-apply") {
		v := c.String("when-to-apply")
		u.WhenToApply = &v
	}
	if u == (skills.Update{}) {
		return usageErrorf("skills update: nothing to change: give --rename, --principle or --when-to-apply")
	}
	lib, err := openLibrary(c)
	if err != nil {
		return err
	}
	s, err := lib.Update(name, u)
	if err != nil {
		return skillErr(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, s)
	}
	fmt.Fprintf(c.App.Writer, "updated skill %s\n", s.Name)
	return nil
}

func skillsRemove(c *cli.Context) error {
	name, err := oneArg(c, "NAME")
	if err != nil {
		return err
	}
	lib, err := openLibrary(c)
	if err != nil {
		return err
	}
	if err := lib.Remove(name); err != nil {
		return skillErr(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, map[string]string{"removed": name})
	}
	fmt.Fprintf(c.App.Writer, "removed skill %s\n", name)
	return nil
}

func skillsSearch(c *cli.Context) error {
	query := strings.Join(c.Args().Slice(), " ")
	if strings.TrimSpace(query) == "" {
		return usageErrorf("skills search needs a QUERY")
	}
	if c.Int("k") < 1 {
		return usageErrorf("-k must be at least 1, got %d", c.Int("k"))
	}
	lib, err := openLibrary(c)
	if err != nil {
		return err
	}
	hits, err := lib.SearchHits(c.Context, query, c.Int("k"))
	if err != nil {
		return skillErr(err)
	}
	w := c.App.Writer
	if c.Bool("json") {
		return printJSONLines(w, hits)
	}
	if len(hits) == 0 {
		if n, err := lib.Count(); err == nil && n > 0 {
			why := "shares a word with"
			if lib.Embedder() != nil {
				why = "is similar to"
			}
			fmt.Fprintf(w, "no skill in %s %s the query\n", lib.Path(), why)
			return nil
		}
		fmt.Fprintf(w, "no skills in %s\n", lib.Path())
		return nil
	}
	for i, h := range hits {
		fmt.Fprintf(w, "%d. %s (score %.3f)\n", i+1, h.Name, h.Score)
		fmt.Fprintf(w, "   principle:     %s\n", strings.ReplaceAll(h.Principle, "\n", "\n                  "))
		fmt.Fprintf(w, "   when to apply: %s\n", strings.ReplaceAll(h.WhenToApply, "\n", "\n                  "))
	}
	return nil
}
