package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// The typed payload of an event form: each field's text becomes the JSON
// value resume --payload would carry, checked by the machine's own payload
// check (machine.CheckPayloadField), so that the form takes exactly what
// resume --payload takes and refuses the rest on its field with resume's
// words.
//
// A field's text is read so:
//   - a field of type string (expr, file; an enum's select) is the text as
//     typed, spaces kept; its box "empty" sends the empty string "";
//   - any other field (int, float, bool, list, map, any) is the
//     text as JSON when it parses as one JSON value (3, 3.0, 1e3, true,
//     [1, 2], {"k": 1}, "quoted", null), else the text as a string (which
//     the check then refuses for a field that is not a string or any);
//   - an empty field (spaces only, but for a string field) is left out of
//     the payload: the event carries the field's default, and a required
//     field is refused as resume refuses it.

// payloadFields are the declared payload fields of event: the spec's
// declaration, else the pause's list (types and whether required); nil
// when neither knows the event.
func payloadFields(spec *mspec.Spec, p *machine.PauseError, event string) []*mspec.PayloadField {
	if decl := specEventDecl(spec, event); decl != nil {
		return decl.Payload
	}
	if p == nil {
		return nil
	}
	for _, ei := range p.Events {
		if ei.Name != event {
			continue
		}
		out := make([]*mspec.PayloadField, len(ei.Payload))
		for i, fi := range ei.Payload {
			out[i] = &mspec.PayloadField{Var: mspec.Var{Name: fi.Name, Type: fi.Type}, Required: fi.Required}
		}
		return out
	}
	return nil
}

// payloadOptions are the choices of a payload field shown as a select (sf
// an enum or a bool; nil for others). An optional field's first choice
// leaves it out (value ""). An enum's values are JSON-quoted, which
// fieldValue reads back, so that a value "" is sent as "" (resume takes it
// when the enum lists it) and not read as the field left out. None is
// selected: the browser shows the first, which leaves an optional field out.
func payloadOptions(pf *mspec.PayloadField, sf startField) []selectOption {
	if sf.Kind != "select" && sf.Kind != "bool" {
		return nil
	}
	var out []selectOption
	if !pf.Required {
		out = append(out, selectOption{Label: "(leave out: " + sf.Default + ")"})
	}
	for _, v := range sf.Enum {
		o := selectOption{Value: v, Label: v}
		if sf.Kind == "select" {
			b, _ := json.Marshal(v)
			o.Value = string(b)
			if v == "" {
				o.Label = `"" (empty)`
			}
		}
		out = append(out, o)
	}
	return out
}

// isText reports whether a payload field is read as the text typed: a
// string (an enum's select too: its values are strings, "3" and "true"
// among them).
func isText(f *mspec.PayloadField) bool {
	switch f.Type {
	case mspec.TypeString, mspec.TypeExpr, mspec.TypeFile:
		return true
	}
	return false
}

// formPayload builds the payload of event from the typed fields of its
// form (p.NAME, and e.NAME for a string field sent empty) and checks each
// declared field as resume does. It returns the payload as --payload JSON
// ("" when no field is given); when a field is refused, errs holds, by
// field, resume's reason, and msg resume's message for the first one
// ("cannot fire event "GO": payload field "n": ...").
func formPayload(event string, fields []*mspec.PayloadField, form url.Values) (payload, msg string, errs map[string]string) {
	out := map[string]any{}
	errs = map[string]string{}
	var first string
	declared := map[string]bool{}
	for _, f := range fields {
		declared[f.Name] = true
		x, given, err := fieldValue(f, form)
		if err == nil {
			_, err = machine.CheckPayloadField(f, x, given)
		}
		if err != nil {
			errs[f.Name] = err.Error()
			if first == "" {
				first = err.Error()
			}
			continue
		}
		if given {
			out[f.Name] = x
		}
	}
	// A field the page did not offer (a hand-made post, or an event whose
	// fields are not known): read as any, and left to resume's check.
	for _, key := range slices.Sorted(func(yield func(string) bool) {
		for k := range form {
			if !yield(k) {
				return
			}
		}
	}) {
		name, ok := strings.CutPrefix(key, "p.")
		if !ok || declared[name] {
			continue
		}
		if x, given, _ := fieldValue(&mspec.PayloadField{Var: mspec.Var{Name: name, Type: mspec.TypeAny}}, form); given {
			out[name] = x
		}
	}
	if len(errs) > 0 {
		msg = fmt.Sprintf("cannot fire event %q: %s", event, first)
		if len(errs) > 1 {
			msg += fmt.Sprintf(" (and %d more fields refused: see each field)", len(errs)-1)
		}
		return "", msg, errs
	}
	if len(out) == 0 {
		return "", "", nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", fmt.Sprintf("cannot fire event %q: %v", event, err), map[string]string{}
	}
	return string(b), "", nil
}

// fieldValue reads the JSON value of a payload field from its form: given
// false when it is left out.
func fieldValue(f *mspec.PayloadField, form url.Values) (any, bool, error) {
	text := form.Get("p." + f.Name)
	empty := form.Get("e."+f.Name) != ""
	if isText(f) && len(f.Enum) > 0 {
		// An enum's select sends its value JSON-quoted (payloadOptions);
		// a hand-made post may send it bare.
		if text == "" {
			return nil, false, nil
		}
		var v string
		if strings.HasPrefix(text, `"`) && json.Unmarshal([]byte(text), &v) == nil {
			return v, true, nil
		}
		return text, true, nil
	}
	if isText(f) {
		switch {
		case empty && text != "":
			return nil, false, fmt.Errorf("payload field %q: either type a value or tick \"empty\", not both", f.Name)
		case empty:
			return "", true, nil
		case text == "":
			return nil, false, nil
		}
		return text, true, nil
	}
	if strings.TrimSpace(text) == "" {
		return nil, false, nil
	}
	if v, ok := jsonValue(text); ok {
		if at, n := mspec.NumberOutOfRange(v, ""); at != "" || n != "" {
			return nil, false, fmt.Errorf("payload field %q: %s is beyond a number's range (±1.8e308); give a smaller one", f.Name, n)
		}
		return mspec.NormalizeJSON(v), true, nil
	}
	return text, true, nil
}

// jsonValue decodes text as one JSON value, its numbers json.Numbers
// (NormalizeJSON then reads them as resume --payload does: an int when
// integral).
func jsonValue(text string) (any, bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}
