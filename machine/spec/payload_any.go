package spec

import (
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"
)

// Payloads whose fields nothing types, as lpp's callers send them.
//
// A payload field of type `any` takes any JSON value: null, a boolean, a
// number (an int when it is written without a fraction or exponent, else
// a float), a string, a list or a map of them. Expressions read it untyped
// (`event.payload.x == 2`, `event.payload.x?.k`); a `set` that stores it
// into a variable checks it against the variable's type then. Only payload
// fields may be `any`: a context variable has one of VarTypes.
//
// `extra_payload_fields: drop` (top level) leaves out a payload field no
// event declares, with a warning, instead of refusing the event: lpp
// ignores the keys of a payload a blueprint does not read, and `lppctl
// import lpp` writes it. A spec without it refuses them.

// The values of `extra_payload_fields:`.
const (
	ExtraRefuse = "refuse"
	ExtraDrop   = "drop"
)

// extraPayload decodes the top-level `extra_payload_fields:`.
func (d *decoder) extraPayload(n *yaml.Node, s *Spec) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || (n.Value != ExtraRefuse && n.Value != ExtraDrop) {
		d.errorf(pos(n), span(n), "extra_payload_fields must be %s or %s, not %s", ExtraRefuse, ExtraDrop, kindName(n))
		d.hintLast("refuse (the default) refuses an event whose payload has a field it does not declare; drop leaves the field out, with a warning")
		return
	}
	s.DropExtraPayload = n.Value == ExtraDrop
}

// A guard whose evaluation fails (a type clash on a value nothing types, a
// key read from a number) stops the run, failed, unless the spec says
// `guard_errors: as_false`: then it is false, with a warning on the step,
// as lpp's gate evaluator counts any failure (lpp-format §8). `lppctl
// import lpp` writes it.

// The values of `guard_errors:`.
const (
	GuardErrorsFail    = "fail"
	GuardErrorsAsFalse = "as_false"
)

// guardErrors decodes the top-level `guard_errors:`.
func (d *decoder) guardErrors(n *yaml.Node, s *Spec) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || (n.Value != GuardErrorsFail && n.Value != GuardErrorsAsFalse) {
		d.errorf(pos(n), span(n), "guard_errors must be %s or %s, not %s", GuardErrorsFail, GuardErrorsAsFalse, kindName(n))
		d.hintLast("fail (the default) stops the run when a guard cannot be evaluated; as_false takes the guard as false, with a warning on the step")
		return
	}
	s.GuardErrorsFalse = n.Value == GuardErrorsAsFalse
}

// isPayloadType reports whether t may type a payload field.
func isPayloadType(t Type) bool { return t == TypeAny || isValidVarType(t) }

// PayloadValue checks a value given to an `any` payload field and returns
// it as a run keeps it: ints and float64s for numbers (NormalizeJSON),
// lists and maps of JSON values. A value JSON cannot carry as it is (a
// time, a number that is not finite, a map of other keys) is refused: the
// run's journal could not keep it.
func PayloadValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string, int:
		return v, nil
	case float64:
		if f, bad := NotFinite(x); bad {
			return nil, fmt.Errorf("%v is not a finite number", f)
		}
		return v, nil
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			c, err := PayloadValue(item)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = c
		}
		return out, nil
	case json.Number:
		return PayloadValue(NormalizeJSON(x))
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			c, err := PayloadValue(item)
			if err != nil {
				return nil, fmt.Errorf(".%s: %w", k, err)
			}
			out[k] = c
		}
		return out, nil
	}
	for _, t := range []Type{TypeInt, TypeFloat, TypeList, TypeMap} {
		if c, err := t.Coerce(v); err == nil {
			return PayloadValue(c) // an int64, a []string...
		}
	}
	return nil, fmt.Errorf("%s is not a JSON value", DescribeValue(v))
}
