package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// JSONSchema returns the JSON Schema (draft-07) of the spec format, for
// editors: with `# yaml-language-server: $schema=PATH` at the top of a spec,
// yaml-language-server completes and checks keys as you type. The schema
// checks shapes only; Validate checks meaning (states, actions, types).
// docs/spec.schema.json holds the schema of lppctl's registry (`lppctl
// schema` prints it, see JSONSchemaFor).
func JSONSchema() []byte { return JSONSchemaFor(nil) }

// ActionNames lists the names of the actions a spec may run: the runtime's
// *Registry is one. The spec model knows the registry by this alone.
type ActionNames interface {
	Names() []string
}

// JSONSchemaFor is JSONSchema with the names of reg's actions enumerated
// under `do`, so that editors complete them and flag unknown ones; with a nil
// registry `do` takes any string.
func JSONSchemaFor(reg ActionNames) []byte {
	doSchema := &schema{Type: "string", Description: "The action to run on entry: a registered name such as `log` (`lppctl actions` lists them)."}
	var names []string
	if reg != nil {
		names = reg.Names()
	}
	if len(names) > 0 {
		sort.Strings(names)
		doSchema.Enum = make([]any, len(names))
		for i, n := range names {
			doSchema.Enum[i] = n
		}
	}
	ident := `^[A-Za-z_][A-Za-z0-9_]*$`
	ref := func(name string) *schema { return &schema{Ref: "#/definitions/" + name} }
	str := func(desc string) *schema { return &schema{Type: "string", Description: desc} }
	stateName := func(desc string) *schema {
		return &schema{Type: "string", Pattern: ident, Description: desc}
	}
	types := make([]any, len(VarTypes))
	for i, t := range VarTypes {
		types[i] = string(t)
	}

	defs := props{
		{"expression", &schema{
			Type:        []string{"string", "number", "boolean"},
			Description: "An expr-lang expression (https://expr-lang.org) over the context variables, `state`, `last_error` and, in an event's transitions, `event` (`event.name`, `event.payload.FIELD`), e.g. `retries < max_retries` or `hasPrefix(reply, \"[DONE]\")`. A string value must be quoted inside the expression: '\"PASS\"'.",
		}},
		{"set", &schema{
			Type:                 "object",
			Description:          "Context variables to update: variable → expression giving its new value, type-checked against the variable's type. All expressions of one set see the context as it was before the set.",
			PropertyNames:        &schema{Pattern: ident},
			AdditionalProperties: ref("expression"),
		}},
		{"typeName", &schema{
			Type:        "string",
			Enum:        types,
			Description: "The type of a context variable.",
		}},
		{"payloadTypeName", &schema{
			Type:        "string",
			Enum:        append(slices.Clone(types), string(TypeAny)),
			Description: "The type of a payload field: a context variable's type, or any (any JSON value, null included).",
		}},
		{"variable", &schema{
			Description: "A typed context variable: a type name (`retries: int`) or a mapping with its type, default, enum and doc.",
			OneOf: []*schema{
				ref("typeName"),
				{
					Type:                 "object",
					AdditionalProperties: false,
					Required:             []string{"type"},
					Properties: props{
						{"type", ref("typeName")},
						{"default", &schema{Description: "The value the variable starts with (default: the type's zero value: 0, 0.0, false, \"\", [], {}). `--var name=value` overrides it for one run."}},
						{"enum", &schema{Type: "array", Items: &schema{Type: "string"}, Description: "The values a string variable may take; guards and set are checked against them."}},
						{"doc", str("What the variable means.")},
						{"range", &schema{Type: "array", Items: &schema{Type: "integer"}, MinItems: ptr(2), MaxItems: ptr(2), Description: "[lo, hi]: the values an int variable can hold, for `lppctl check`: the values it tries when an action writes the variable, and bounds every set must respect (see docs/check.md)."}},
						{"nullable", &schema{Type: "boolean", Description: "The variable may hold null, \"no value yet\": it starts as null unless it has a default, and expressions test it with `x == nil`."}},
						{"input", &schema{Type: "boolean", Description: "A caller sets the variable (a parent's spec.run `input:`, `--var`): `lppctl check` starts it from every value of its domain, not only its default (see docs/check.md). Runs ignore it."}},
					},
				},
			},
		}},
		{"transition", &schema{
			Description: "A transition: a state name, or a mapping with its target, guard, set, note and warning.",
			OneOf: []*schema{
				stateName("The state to go to, unconditionally."),
				{
					Type:                 "object",
					AdditionalProperties: false,
					Required:             []string{"to"},
					Properties: props{
						{"to", stateName("The state to go to.")},
						{"when", &schema{Ref: "#/definitions/expression", Description: "The guard: a bool expression. The first transition of `next` whose guard holds fires; a transition without one always fires (list it last)."}},
						{"set", ref("set")},
						{"note", str("A comment shown on diagrams.")},
						{"warn", str("A warning printed and journaled when this transition fires.")},
					},
				},
			},
		}},
		{"errorRoute", &schema{
			Description: "Where to go when the state's action fails; the error text is in `last_error`.",
			OneOf: []*schema{
				stateName("The state to go to when the action fails."),
				{
					Type:                 "object",
					AdditionalProperties: false,
					Required:             []string{"to"},
					Properties: props{
						{"to", stateName("The state to go to when the action fails.")},
						{"set", ref("set")},
						{"note", str("A comment shown on diagrams.")},
						{"warn", str("A warning printed and journaled when this route is taken.")},
					},
				},
			},
		}},
		{"state", &schema{
			Type:                 []string{"object", "null"},
			AdditionalProperties: false,
			Description:          "A state. On entry it runs its action (`do`), then applies its `set`, then takes the first transition of `next` whose guard holds.",
			Properties: props{
				{"do", doSchema},
				{"with", &schema{Type: "object", Description: "The action's parameters: name → value. Parameters of type expr take an expression evaluated when the action runs."}},
				{"set", &schema{Ref: "#/definitions/set", Description: "Context variables to update after the action, before the guards."}},
				{"next", &schema{
					Description: "The transitions, in order: the first whose `when` holds fires. A single state name is an unconditional transition.",
					OneOf: []*schema{
						stateName("The state to go to next, unconditionally."),
						{Type: "array", Items: ref("transition")},
					},
				}},
				{"on_error", ref("errorRoute")},
				{"on", &schema{
					Type:                 []string{"object", "null"},
					Description:          "The state's own transitions per event: event name → a state name, one transition or a list of them, tried in order. A state with on: and no next waits: after its action and set, the run pauses there until one of its events is delivered (lppctl resume RUN_ID --event NAME). A state's on: is tried before the top-level events.",
					PropertyNames:        &schema{Pattern: ident},
					AdditionalProperties: ref("onEvent"),
				}},
				{"final", &schema{Type: "boolean", Description: "The run completes when this state's action (if any) and set are done. A final state has no next and no on_error."}},
				{"note", str("A comment shown on diagrams.")},
				{"final_requires", &schema{
					Description: "Final states only: conditions a run must meet when it ends here, checked by `lppctl check`: a list of bool expressions, or a mapping of name → expression.",
					OneOf: []*schema{
						{Type: "array", Items: ref("expression")},
						{Type: "object", AdditionalProperties: ref("expression")},
					},
				}},
			},
		}},
		{"onEvent", &schema{
			Description: "Where an event goes from this state: a state name, one transition, or a list of transitions tried in order (the first whose `when` holds fires). Their `when` and `set` may read `event.payload`.",
			OneOf: []*schema{
				stateName("The state the event goes to, unconditionally."),
				ref("transition"),
				{Type: "array", Items: ref("transition")},
			},
		}},
		{"eventTransition", &schema{
			Type:                 "object",
			AdditionalProperties: false,
			Required:             []string{"to"},
			Description:          "A transition of a named event: it moves the machine from any of its `from` states. Its `when` and `set` may read `event.payload`.",
			Properties: props{
				{"from", &schema{
					Description: "The states the transition applies in: a state name, a list of them, or \"*\" (the default) for every non-final state.",
					OneOf: []*schema{
						{Type: "string"},
						{Type: "array", Items: &schema{Type: "string"}},
					},
				}},
				{"to", stateName("The state the event moves to.")},
				{"when", &schema{Ref: "#/definitions/expression", Description: "A guard: the transition is skipped when it does not hold."}},
				{"set", ref("set")},
				{"note", str("A comment shown on diagrams.")},
			},
		}},
		{"payloadField", &schema{
			Description: "A typed payload field: a type name (`text: string`, required) or a mapping with its type, required, default, enum, doc and nullable. Type `any` takes any JSON value.",
			OneOf: []*schema{
				ref("payloadTypeName"),
				{
					Type:                 "object",
					AdditionalProperties: false,
					Required:             []string{"type"},
					Properties: props{
						{"type", ref("payloadTypeName")},
						{"required", &schema{Type: "boolean", Description: "Whether the payload must give the field (default: true, false when it has a default)."}},
						{"default", &schema{Description: "The value an optional field takes when the payload leaves it out (default: the type's zero value)."}},
						{"enum", &schema{Type: "array", Items: &schema{Type: "string"}, Description: "The values a string field may take."}},
						{"doc", str("What the field means.")},
						{"nullable", &schema{Type: "boolean", Description: "The field may be null: an optional field the payload leaves out is null (not its type's zero value), and expressions read it untyped (imported L++ blueprints, whose payload fields are Python values)."}},
					},
				},
			},
		}},
		{"event", &schema{
			Description: "A named event (sent by an action with `emit`, from outside with lppctl run/resume --event): one transition, a list of them tried in order, or a declaration of its payload (with its transitions under `transitions`, or in the states' `on:`). A state's own `on:` is tried first.",
			OneOf: []*schema{
				{Type: "null"},
				{Type: "array", Items: ref("eventTransition")},
				{
					Type:                 "object",
					AdditionalProperties: false,
					Properties: props{
						{"from", &schema{
							Description: "The states the transition applies in: a state name, a list of them, or \"*\" (the default) for every non-final state.",
							OneOf: []*schema{
								{Type: "string"},
								{Type: "array", Items: &schema{Type: "string"}},
							},
						}},
						{"to", stateName("The state the event moves to.")},
						{"when", &schema{Ref: "#/definitions/expression", Description: "A guard: the transition is skipped when it does not hold."}},
						{"set", ref("set")},
						{"note", str("A comment shown on diagrams.")},
						{"payload", &schema{
							Type:                 []string{"object", "null"},
							Description:          "The event's payload fields: name → type. A payload given with --payload or by an action is checked against them; `event.payload.FIELD` (`event.payload[\"first-name\"]` for a name that is not an identifier) is type-checked.",
							PropertyNames:        &schema{MinLength: ptr(1)},
							AdditionalProperties: ref("payloadField"),
						}},
						{"transitions", &schema{Type: "array", Items: ref("eventTransition"), Description: "The event's transitions, tried in order (instead of from/to/when/set)."}},
					},
				},
			},
		}},
	}

	root := &schema{
		Schema:               "http://json-schema.org/draft-07/schema#",
		Title:                "lppctl spec",
		Description:          "A declarative state machine that lppctl runs (see docs/spec.md).",
		Type:                 "object",
		AdditionalProperties: false,
		Required:             []string{"lpp", "name", "initial", "states"},
		Properties: props{
			{"lpp", &schema{Type: "integer", Const: FormatVersion, Description: fmt.Sprintf("The spec format version: %d.", FormatVersion)}},
			{"name", &schema{Type: "string", MinLength: ptr(1), Pattern: `\S`, Description: "The spec's name, shown by runs and diagrams."}},
			{"description", str("What the machine does.")},
			{"context", &schema{
				Type:                 []string{"object", "null"},
				Description:          "The typed run variables that guards and set read and write. `state` and `last_error` are reserved.",
				PropertyNames:        &schema{Pattern: ident, Not: &schema{Enum: reservedVarNames()}},
				AdditionalProperties: ref("variable"),
			}},
			{"initial", stateName("The state a run starts in.")},
			{"states", &schema{
				Type:                 "object",
				MinProperties:        ptr(1),
				Description:          "The states, by name. Names are identifiers.",
				PropertyNames:        &schema{Pattern: ident},
				AdditionalProperties: ref("state"),
			}},
			{"events", &schema{
				Type:                 []string{"object", "null"},
				Description:          "Named events, by name.",
				PropertyNames:        &schema{Pattern: ident},
				AdditionalProperties: ref("event"),
			}},
			{"extra_payload_fields", &schema{
				Type:        "string",
				Enum:        []any{ExtraRefuse, ExtraDrop},
				Description: "What a payload field no event declares does: refuse (the default) refuses the event; drop leaves the field out, with a warning on the step that takes the event (imported L++ blueprints: lpp ignores the keys a blueprint does not read).",
			}},
			{"guard_errors", &schema{
				Type:        "string",
				Enum:        []any{GuardErrorsFail, GuardErrorsAsFalse},
				Description: "What a guard whose evaluation fails does: fail (the default) stops the run, failed; as_false takes the guard as false, with a warning on the step (imported L++ blueprints: lpp's gate evaluator counts any failure as false).",
			}},
			{"limits", &schema{
				Type:                 "object",
				AdditionalProperties: false,
				Description:          "Bounds of a run.",
				Properties: props{
					{"max_transitions", &schema{Type: "integer", Minimum: ptr(1), Description: fmt.Sprintf("Transitions per run (counted across resumes) before it fails; default %d. --max-transitions overrides it.", DefaultMaxTransitions)}},
				},
			}},
			{"invariants", &schema{
				Type:          []string{"object", "null"},
				Description:   "Named conditions that must hold in every reachable state, checked by `lppctl check`: name → bool expression, or name → {expr, in: [states]} to check it only in those states.",
				PropertyNames: &schema{Pattern: ident},
				AdditionalProperties: &schema{OneOf: []*schema{
					ref("expression"),
					{
						Type:                 "object",
						AdditionalProperties: false,
						Required:             []string{"expr"},
						Properties: props{
							{"expr", ref("expression")},
							{"in", &schema{
								Description: "The states the invariant must hold in: a state name or a list of them (default: every state).",
								OneOf: []*schema{
									{Type: "string"},
									{Type: "array", Items: &schema{Type: "string"}},
								},
							}},
						},
					},
				}},
			}},
		},
		Definitions: defs,
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(root); err != nil {
		panic(fmt.Sprintf("cannot encode the spec schema: %v", err)) // static data: a programming error
	}
	return b.Bytes()
}

func ptr(n int) *int { return &n }

// reservedVarNames are the names no context variable may have: the
// interpreter's and the expression keywords.
func reservedVarNames() []any {
	out := []any{VarState, VarLastError}
	for _, k := range exprKeywords {
		out = append(out, k)
	}
	return out
}

// schema is the subset of JSON Schema draft-07 the spec schema uses, with
// properties kept in order.
type schema struct {
	Schema               string    `json:"$schema,omitempty"`
	Ref                  string    `json:"$ref,omitempty"`
	Title                string    `json:"title,omitempty"`
	Description          string    `json:"description,omitempty"`
	Type                 any       `json:"type,omitempty"`
	Const                any       `json:"const,omitempty"`
	Enum                 []any     `json:"enum,omitempty"`
	Pattern              string    `json:"pattern,omitempty"`
	MinLength            *int      `json:"minLength,omitempty"`
	MinProperties        *int      `json:"minProperties,omitempty"`
	MinItems             *int      `json:"minItems,omitempty"`
	MaxItems             *int      `json:"maxItems,omitempty"`
	Minimum              *int      `json:"minimum,omitempty"`
	Required             []string  `json:"required,omitempty"`
	Properties           props     `json:"properties,omitempty"`
	PropertyNames        *schema   `json:"propertyNames,omitempty"`
	AdditionalProperties any       `json:"additionalProperties,omitempty"`
	Items                *schema   `json:"items,omitempty"`
	OneOf                []*schema `json:"oneOf,omitempty"`
	Not                  *schema   `json:"not,omitempty"`
	Definitions          props     `json:"definitions,omitempty"`
}

type prop struct {
	name string
	s    *schema
}

// props is an ordered set of named schemas.
type props []prop

func (ps props) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(p.name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(p.s)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}
