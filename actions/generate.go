package actions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/lppctl/lppctl/actions/replyjson"
	"github.com/lppctl/lppctl/actions/replyschema"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// llmGenerate is llm.generate: render the prompts, call the model (running
// the tool calls it makes, at most max_rounds rounds), and, with a schema or
// a map, re-prompt with what is wrong until the reply is JSON that fits, at
// most repairs times.
func (d *Deps) llmGenerate(ctx context.Context, c *machine.Call) error {
	var msgs []llm.Message
	if name := c.String("system"); name != "" {
		sys, err := d.renderGeneral(c, name)
		if err != nil {
			return err
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Text: sys})
	}
	prompt, err := d.renderGeneral(c, c.String("prompt"))
	if err != nil {
		return err
	}
	var schema *replyschema.Schema
	if v := c.Param("schema"); v != nil {
		if schema, err = replyschema.Load(v, d.SpecDir, d.RootDir(), namedReader(d.hidePolicy(), d.SpecDir, d.RootDir())); err != nil {
			return fmt.Errorf("cannot use the schema of state %q: %w", c.State, err)
		}
		prompt += "\nAnswer with one JSON value valid against this JSON Schema, and nothing else:\n" + schema.Text() + "\n"
	}
	mapping, err := stringMap(c, "map")
	if err != nil {
		return err
	}
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Text: prompt})
	tools, err := d.offeredTools(c)
	if err != nil {
		return err
	}
	wantJSON := schema != nil || len(mapping) > 0
	repairs, rounds := c.Int("repairs"), 0
	for {
		reply, err := d.send(ctx, c, llm.Request{Agent: "llm.generate", State: c.State, Messages: msgs, Tools: tools, JSON: wantJSON}, "state:"+c.State)
		if err != nil {
			return err
		}
		if len(reply.ToolCalls) > 0 && len(tools) > 0 {
			if rounds >= c.Int("max_rounds") {
				return fmt.Errorf("the model still asks for tools after %d rounds (max_rounds %d) in state %q", rounds, c.Int("max_rounds"), c.State)
			}
			rounds++
			results, err := d.runToolCalls(ctx, c, reply.ToolCalls, tools)
			if err != nil {
				return err
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Text: reply.Text, ToolCalls: reply.ToolCalls})
			msgs = append(msgs, results...)
			continue
		}
		if limit := c.Int("max_reply_chars"); limit > 0 && len(reply.Text) > limit {
			problem := fmt.Sprintf("the reply has %d characters, more than max_reply_chars (%d)", len(reply.Text), limit)
			if repairs <= 0 {
				return fmt.Errorf("the model's reply in state %q is still too long after %d repair(s): %s", c.State, c.Int("repairs"), problem)
			}
			repairs--
			c.Notef("%s; asking again", problem)
			// The reply is not kept: only its start goes back, so the model sees what it did.
			msgs = append(msgs,
				llm.Message{Role: llm.RoleAssistant, Text: headBytes(reply.Text, 400) + fmt.Sprintf("\n[... %d more bytes cut]", len(reply.Text)-len(headBytes(reply.Text, 400)))},
				llm.Message{Role: llm.RoleUser, Text: "Your reply was refused unread: " + problem + ". Answer again, within the limit: only what was asked, no repeated or padded text."})
			continue
		}
		text := strings.TrimSpace(reply.Text)
		if !wantJSON {
			return setOutput(c, text)
		}
		out, problem := applyReply(c, text, schema, mapping)
		if problem == "" {
			return setOutput(c, out)
		}
		problem = ReplyProblem(reply, len(tools) > 0, problem)
		if repairs <= 0 {
			return fmt.Errorf("the model's reply in state %q is still invalid after %d repair(s): %s", c.State, c.Int("repairs"), problem)
		}
		repairs--
		c.Notef("the reply was invalid (%s); asking again", Clip(problem, 160))
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Text: reply.Text},
			llm.Message{Role: llm.RoleUser, Text: "Your reply was invalid: " + problem + "\nAnswer again with the corrected JSON only."})
	}
}

// setOutput writes the reply to the output variable, when one is named.
func setOutput(c *machine.Call, text string) error {
	if name := c.String("output"); name != "" {
		return c.SetVar(name, text)
	}
	return nil
}

// applyReply extracts the JSON of a reply, checks it against the schema and
// stages the map's variables; problem says what is wrong, in words the model
// can act on ("" when the reply fits). out is the JSON found in the reply.
func applyReply(c *machine.Call, text string, schema *replyschema.Schema, mapping map[string]string) (out, problem string) {
	raw, err := pickReplyValue(text, schema)
	if err != nil {
		return "", err.Error()
	}
	v, err := replyjson.Decode(raw)
	if err != nil {
		return "", "the reply is not valid JSON: " + err.Error()
	}
	if schema != nil {
		if p := schema.NullProblem(); v == nil && p != "" {
			return "", p
		}
		if err := schema.Validate(v); err != nil {
			return "", "it does not satisfy the schema: " + err.Error()
		}
	}
	for _, name := range sortedKeys(mapping) {
		field, err := replyjson.PointerGet(v, mapping[name])
		if ae := (*replyjson.AbsentError)(nil); errors.As(err, &ae) && schema != nil && schema.MayOmit(mapping[name], ae.Depth) {
			c.Notef("the reply leaves out %s, which the schema does not require: %s keeps its value", mapping[name], name)
			continue
		}
		if err != nil {
			return "", err.Error()
		}
		if err := c.SetVar(name, mspec.NormalizeJSON(field)); err != nil {
			return "", fmt.Sprintf("%s: %v", mapping[name], strings.TrimPrefix(err.Error(), "cannot set "))
		}
	}
	return raw, ""
}

// pickReplyValue is the JSON value of a reply (see replyValues). When the
// reply holds several that differ, the one valid against the schema is
// taken if it is the only one (the others are not answers: the input quoted
// back, a fragment); several valid ones (a format example, then the answer;
// a draft, then the final one) are an error, never the first taken silently.
//
// For a schema that takes an array, an array in prose is found too (see
// replyArray) when the values found are not one valid array.
func pickReplyValue(text string, schema *replyschema.Schema) (string, error) {
	vals, err := replyjson.Values(text)
	if schema.WantsArray() && !oneValid(vals, err, schema) {
		if arr, ok, aerr := replyjson.Array(strings.TrimSpace(text), func(v any) bool { return schema.Validate(v) == nil }); ok {
			return arr, aerr
		}
		if err != nil {
			return "", replyschema.NoArrayError(err)
		}
	}
	if err != nil {
		return "", err
	}
	if len(vals) == 1 {
		return vals[0].Text, nil
	}
	if schema != nil {
		var valid []replyjson.Span
		for _, v := range vals {
			if d, err := replyjson.Decode(v.Text); err == nil && schema.Validate(d) == nil {
				valid = append(valid, v)
			}
		}
		if len(valid) == 1 {
			if err := laterAttempt(strings.TrimSpace(text), vals, valid[0], schema); err != nil {
				return "", err
			}
			return valid[0].Text, nil
		}
		if len(valid) > 1 {
			vals = valid
		}
	}
	return "", replyjson.SeveralValues(strings.TrimSpace(text), vals, "JSON values")
}

// oneValid reports whether replyValues found one value, valid against the
// schema.
func oneValid(vals []replyjson.Span, err error, schema *replyschema.Schema) bool {
	if err != nil || len(vals) != 1 {
		return false
	}
	d, derr := replyjson.Decode(vals[0].Text)
	return derr == nil && schema.Validate(d) == nil
}

// laterAttempt refuses the one value valid against the schema when an
// invalid value after it holds every key it holds: that one is the answer,
// in the reply's last place and with the format's keys, and the valid one
// an example of the format (`Format: {"score": 0, ...}. Answer: {"score":
// "4", ...}` took the example's 0). The error says what is wrong with the
// later one, so that the model corrects its answer.
func laterAttempt(s string, vals []replyjson.Span, valid replyjson.Span, schema *replyschema.Schema) error {
	keys, ok := objectKeys(valid.Text)
	if !ok || len(keys) == 0 {
		return nil
	}
	for _, v := range slices.Backward(vals) {
		if v.Start <= valid.Start {
			break
		}
		later, ok := objectKeys(v.Text)
		if !ok || !keys.subsetOf(later) {
			continue
		}
		d, err := replyjson.Decode(v.Text)
		if err != nil {
			continue
		}
		if verr := schema.Validate(d); verr != nil {
			l, c := replyjson.LineCol(s, v.Start)
			return fmt.Errorf("the reply holds %d different JSON values (an example of the format, then your answer?); the one at line %d, column %d, after the one that fits, does not satisfy the schema: %v; answer with one JSON object, your answer, and nothing else (no example of the format, no draft)", len(vals), l, c, verr)
		}
	}
	return nil
}

// keySet is the set of an object's top-level keys.
type keySet map[string]bool

func (k keySet) subsetOf(other keySet) bool {
	for key := range k {
		if !other[key] {
			return false
		}
	}
	return true
}

// objectKeys returns the top-level keys of a JSON object text (ok false
// when it is not an object).
func objectKeys(text string) (keySet, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &m) != nil || m == nil {
		return nil, false
	}
	out := make(keySet, len(m))
	for k := range m {
		out[k] = true
	}
	return out, true
}

// offeredTools returns the gateway tools the tools parameter names (nil when
// none).
func (d *Deps) offeredTools(c *machine.Call) ([]llm.Tool, error) {
	names, _ := c.Param("tools").([]any)
	if len(names) == 0 {
		return nil, nil
	}
	all, err := d.ToolDefs(false)
	if err != nil {
		return nil, err
	}
	var out []llm.Tool
	for _, n := range names {
		name, _ := n.(string)
		i := slices.IndexFunc(all, func(t llm.Tool) bool { return t.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("tools of state %q: %q is not a gateway tool (tools are %s, %s)", c.State, fmt.Sprint(n), gateway.ToolCLI, gateway.ToolRunner)
		}
		out = append(out, all[i])
	}
	return out, nil
}

// runToolCalls runs a reply's tool calls through the gateway, as the agent's
// tools.execute does, and returns their results as tool messages. A call of
// a tool the state does not offer is refused without reaching the gateway.
func (d *Deps) runToolCalls(ctx context.Context, c *machine.Call, calls []llm.ToolCall, offered []llm.Tool) ([]llm.Message, error) {
	gw, err := d.OpenGateway()
	if err != nil {
		return nil, err
	}
	out := make([]llm.Message, 0, len(calls))
	for _, tc := range calls {
		var text, decision string
		if !slices.ContainsFunc(offered, func(t llm.Tool) bool { return t.Name == tc.Name }) {
			text, decision = fmt.Sprintf("%s tool-not-offered: state %q offers only %s", gateway.PrefixBlocked, c.State, toolNames(offered)), gateway.DecisionBlock
		} else {
			res := gw.CallJSON(ctx, tc.Name, tc.Arguments)
			text, decision = res.Text, res.Decision
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Name: tc.Name, Text: text})
		c.Notef("%s %s → %s: %s", tc.Name, Clip(textx.OneLine(tc.Arguments), 100), decision, Clip(textx.OneLine(text), 100))
	}
	return out, nil
}

func toolNames(tools []llm.Tool) string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

// renderGeneral renders a general action's template file with the run's
// context variables as its data ({{.summary}}), the event that entered the
// state ({{.event.payload.text}}) and {{memory "key"}} reading run memory.
func (d *Deps) renderGeneral(c *machine.Call, name string) (string, error) {
	path, err := d.FindTemplate(name)
	if err != nil {
		return "", err
	}
	d.mu.Lock()
	if d.templateDir == "" {
		d.templateDir = filepath.Dir(path) // where demoFile looks when the spec's folder has no demo.yaml
	}
	d.mu.Unlock()
	src, err := d.ReadTemplate(path)
	if err != nil {
		return "", err
	}
	tx := c.Memory()
	t, err := parseGeneralTemplate(filepath.Base(path), string(src), func(key string) (any, error) { return memoryValue(tx, key) })
	if err != nil {
		return "", fmt.Errorf("cannot parse prompt template %s: %w", path, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, templateData(c)); err != nil {
		return "", fmt.Errorf("cannot render prompt template %s: %w", path, err)
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}

// parseGeneralTemplate parses a general action's template: the agent's
// template functions, json, and memory (reading run memory through mem).
func parseGeneralTemplate(name, src string, mem func(string) (any, error)) (*template.Template, error) {
	funcs := template.FuncMap{
		"json": func(v any) (string, error) {
			b, err := json.Marshal(v)
			return string(b), err
		},
		"memory": mem,
	}
	return template.New(name).Funcs(TemplateFuncs).Funcs(funcs).Option("missingkey=error").Parse(src)
}

// memoryValue returns a memory slot's value, else its list of items (nil
// when the slot is empty).
func memoryValue(tx machine.MemoryTx, key string) (any, error) {
	var v any
	ok, err := tx.Get(key, &v)
	if err != nil || ok {
		return v, err
	}
	items := tx.Items(key)
	if len(items) == 0 {
		return nil, nil
	}
	out := make([]any, len(items))
	for i, raw := range items {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			return nil, fmt.Errorf("cannot read memory %s[%d]: %w", key, i, err)
		}
	}
	return out, nil
}

// headBytes is the first n bytes of s, cut back to a rune start.
func headBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
