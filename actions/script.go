package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/lppctl/lppctl/actions/replyjson"
	"regexp"
	"strings"

	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// stderrTail is how much of a failing script's stderr an error carries.
const stderrTail = 600

// scriptRun is script.run, the COMPUTE model: input (evaluated against the
// context) goes to the script as one JSON object on stdin, through the
// gateway's runner (argv, minimal environment, timeout, process-group kill);
// the script prints one JSON object whose keys output copies into typed
// context variables.
func (d *Deps) scriptRun(ctx context.Context, c *machine.Call) error {
	output, err := stringMap(c, "output")
	if err != nil {
		return err
	}
	obj, stdout, stderr, err := d.runScript(ctx, c)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	lpp := c.Bool("lpp")
	if err != nil {
		if !lpp {
			return err
		}
		// L++'s compiled operator: the failure dict goes through the
		// output map, and the transition carries on.
		obj = map[string]any{"error": err.Error(), "status": "failed"}
		c.Notef("%v: L++ semantics, output gets %s", err, `{"error": ..., "status": "failed"}`)
	}
	script := c.String("script")
	for _, name := range sortedKeys(output) {
		key := output[name]
		val, ok := obj[key]
		if !ok {
			if lpp { // L++: a key the result lacks leaves the variable as it is
				continue
			}
			return fmt.Errorf("script %s: its output has no key %q for %s (it has %s)%s%s", script, key, name, replyjson.KeyList(obj), errorKeyNote(obj), stderrNote(stderr))
		}
		if root, path, dotted := strings.Cut(name, "."); lpp && dotted {
			// L++'s output_map writes a context path: into the map root,
			// creating the maps on the way (lpp's atom_MUTATE)
			if err := c.SetVar(root, setPath(c.Var(root), strings.Split(path, "."), mspec.NormalizeJSON(val))); err != nil {
				return fmt.Errorf("script %s: key %q: %w", script, key, err)
			}
			continue
		}
		if err := c.SetVar(name, mspec.NormalizeJSON(val)); err != nil {
			return fmt.Errorf("script %s: key %q: %w", script, key, err)
		}
	}
	defines, derr := stringMap(c, "defines")
	if derr != nil {
		return derr
	}
	for _, flag := range sortedKeys(defines) {
		if _, ok := obj[defines[flag]]; ok {
			if serr := c.SetVar(flag, true); serr != nil {
				return fmt.Errorf("script %s: defines.%s: %w", script, flag, serr)
			}
		}
	}
	if err == nil {
		c.Notef("script %s → %s", script, Clip(textx.OneLine(stdout), 100))
	}
	return nil
}

// errorKeyNote quotes the "error" a script printed instead of its answer
// (exit code 0, {"error": "unknown unit 'parsec'"}), so that a failure says
// why the script refused: "" when it printed no such text.
func errorKeyNote(obj map[string]any) string {
	msg, ok := obj["error"].(string)
	if !ok || strings.TrimSpace(msg) == "" {
		return ""
	}
	return errorKeyLead + Clip(textx.OneLine(msg), stderrTail)
}

// errorKeyLead starts errorKeyNote's text.
const errorKeyLead = `; its "error": `

// setPath returns a copy of m (a map, else a new one) with the key path
// set to v, each map on the way copied or created (a value that is no map
// is replaced by one, as lpp's atom_MUTATE does).
func setPath(m any, path []string, v any) map[string]any {
	old, _ := m.(map[string]any)
	out := make(map[string]any, len(old)+1)
	for k, x := range old {
		out[k] = x
	}
	if len(path) == 1 {
		out[path[0]] = v
	} else {
		out[path[0]] = setPath(old[path[0]], path[1:], v)
	}
	return out
}

// runScript runs script.run's script and decodes the JSON object it
// prints.
func (d *Deps) runScript(ctx context.Context, c *machine.Call) (obj map[string]any, stdout, stderr string, err error) {
	script := c.String("script")
	input, err := evalMap(c, "input")
	if err != nil {
		return nil, "", "", err
	}
	stdin, err := json.Marshal(input)
	if err != nil {
		return nil, "", "", fmt.Errorf("cannot send the input of script %s as JSON: %w", script, err)
	}
	gw, err := d.OpenGateway()
	if err != nil {
		return nil, "", "", err
	}
	res := gw.Call(ctx, gateway.ToolRunner, map[string]any{"script_name": script, "stdin_text": string(stdin)})
	if ctx.Err() != nil {
		return nil, "", "", ctx.Err()
	}
	stdout, stderr = splitStreams(res.Text)
	switch res.Decision {
	case gateway.DecisionBlock:
		return nil, stdout, stderr, fmt.Errorf("script %s: %s", script, res.Text)
	case gateway.DecisionError:
		return nil, stdout, stderr, fmt.Errorf("script %s failed: %s", script, tail(res.Text, stderrTail+200))
	}
	if m := cutStdoutRE.FindStringSubmatch(stdout); m != nil {
		return nil, stdout, stderr, fmt.Errorf("script %s printed %s bytes on stdout, more than the policy's limits.max_output_bytes (%s): the output was cut, so it is not one JSON object; print less, or raise the limit in config/tools_config.yaml%s", script, m[1], m[2], stderrNote(stderr))
	}
	v, err := replyjson.Decode(stdout)
	obj, isObj := v.(map[string]any)
	if err != nil || !isObj {
		what := "no JSON object"
		if err == nil {
			what = replyjson.Describe(v) + " instead of a JSON object"
		}
		return nil, stdout, stderr, fmt.Errorf("script %s printed %s on stdout (%q)%s", script, what, Clip(textx.OneLine(stdout), 120), stderrNote(stderr))
	}
	return obj, stdout, stderr, nil
}

// cutStdoutRE matches the note the gateway's runner ends a stdout with when
// it kept only the first max_output_bytes: the bytes printed and those kept.
var cutStdoutRE = regexp.MustCompile(`\n\[TRUNCATED: stdout was (\d+) bytes; showing the first (\d+)\]$`)

// splitStreams separates what the gateway's runner shows of a script's
// output into stdout and stderr: both are labelled when both were written.
// A JSON object cannot hold the "\n[stderr]\n" that ends stdout's part, so
// the split is exact for the output script.run accepts.
func splitStreams(text string) (stdout, stderr string) {
	switch {
	case text == gateway.NoOutput:
		return "", ""
	case strings.HasPrefix(text, "[stderr]\n"):
		return "", strings.TrimPrefix(text, "[stderr]\n")
	case strings.HasPrefix(text, "[stdout]\n"):
		body := strings.TrimPrefix(text, "[stdout]\n")
		if i := strings.Index(body, "\n[stderr]\n"); i >= 0 {
			return body[:i], body[i+len("\n[stderr]\n"):]
		}
		return body, ""
	}
	return text, ""
}

// stderrNote is "; stderr: ..." with the tail of stderr, or "".
func stderrNote(stderr string) string {
	if strings.TrimSpace(stderr) == "" {
		return ""
	}
	return "; stderr: " + tail(strings.TrimSpace(stderr), stderrTail)
}

// tail returns the last n bytes of s (at a rune start), marked when cut.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && s[i]&0xC0 == 0x80 {
		i++
	}
	return "…" + s[i:]
}
