package check

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// maxPayloads bounds the payload values the check tries per event (the
// product of its fields' domains); beyond it the first ones are kept and the
// report says the event's payloads were sampled.
const maxPayloads = 64

// payloadValues returns the values `event` takes when event ce is delivered:
// one per combination of its payload fields' domains (each field's domain is
// chosen as for a context variable an action writes, from the literals the
// spec compares event.payload.FIELD with), and a label for traces. An event
// without a payload has one value, with an empty payload.
//
// A field reads as null only when it is optional and has no default (a
// null given to a required field is refused, to an optional one reads as
// its default): elsewhere null is not one of its values. sampled says the
// values were cut at maxPayloads; given holds each payload as JSON gives
// it (lppctl run --payload), for a trace; the check reports it only once a state
// takes the event from outside (Explorer.enabled), not for an event only
// an action emits, with its payload computed.
func (x *Explorer) payloadValues(ce *machine.Cevent) (vals []any, labels []string, given []map[string]any, sampled bool) {
	var fields []*mspec.PayloadField
	if ce.Decl != nil {
		fields = ce.Decl.Payload
	}
	doms := make([][]any, len(fields))
	for i, f := range fields {
		v := f.Var
		v.Name = payloadKey(f.Name)
		doms[i], _ = x.Cmp.Domain(&v)
		seen := map[string]bool{}
		for _, val := range doms[i] {
			seen[string(appendValue(nil, val))] = true
		}
		add := func(val any) {
			if k := string(appendValue(nil, val)); !seen[k] {
				seen[k] = true
				doms[i] = append(doms[i], val)
			}
		}
		// A field stored as it is (set: {level: event.payload.level}) also
		// takes the values the spec compares that variable with (each target
		// variable once).
		done := map[string]bool{}
		for _, target := range x.storedFrom(ce.Name, f.Name) {
			if tv := x.spec.Var(target); tv != nil && (tv.Type == f.Type || f.Type == mspec.TypeAny) && !done[target] {
				done[target] = true
				more, _ := x.Cmp.Domain(tv)
				for _, val := range more {
					add(val)
				}
			}
		}
		if len(done) > 0 {
			// the stored variable's values padded to the lengths the field's
			// len is compared with (len(event.payload.items) >= 3 and
			// "stop" in items: ["stop", "item", "item"])
			padded(x.Cmp[lenKey(v.Name)], &doms[i], add)
		}
		if !f.Required && (f.Default != nil || f.Nullable) {
			add(f.Default) // a nullable field's is null
		}
		if f.Required || f.Default != nil {
			if kept := slices.DeleteFunc(slices.Clone(doms[i]), func(v any) bool { return v == nil }); len(kept) > 0 {
				doms[i] = kept
			}
		}
	}
	idx := make([]int, len(fields))
	for {
		ev := reflect.New(ce.Typ).Elem()
		ev.Field(0).SetString(ce.Name)
		var parts []string
		payload := map[string]any{} // as --payload gives it: a field left out reads as its default
		for i, f := range fields {
			val := doms[i][idx[i]]
			if val != nil {
				ev.Field(1).Field(i).Set(reflect.ValueOf(val).Convert(ev.Field(1).Field(i).Type()))
				payload[f.Name] = val
			}
			parts = append(parts, fmt.Sprintf("%s: %s", f.Name, QuoteValue(val)))
		}
		vals = append(vals, ev.Interface())
		given = append(given, payload)
		if len(parts) > 0 {
			labels = append(labels, "{"+strings.Join(parts, ", ")+"}")
		} else {
			labels = append(labels, "")
		}
		if len(vals) == maxPayloads {
			sampled = true
			break
		}
		i := 0
		for ; i < len(idx); i++ {
			idx[i]++
			if idx[i] < len(doms[i]) {
				break
			}
			idx[i] = 0
		}
		if i == len(idx) {
			break
		}
	}
	return vals, labels, given, sampled
}

// noteSampled records that the check delivered event ev from outside with
// only the first maxPayloads of its payload values.
func (x *Explorer) noteSampled(ev *xevent) {
	ev.sampledNoted = true
	if !slices.Contains(x.sampled, ev.Name) {
		x.sampled = append(x.sampled, ev.Name)
		sort.Strings(x.sampled)
	}
}

// storedFrom returns the context variables a transition of event sets to
// exactly event.payload.FIELD.
func (x *Explorer) storedFrom(event, field string) []string {
	var out []string
	want := payloadKey(field)
	add := func(as []*mspec.Assign) {
		for _, a := range as {
			if strings.Join(strings.Fields(a.Expr), "") == want {
				out = append(out, a.Var)
			}
		}
	}
	for _, st := range x.spec.States {
		for _, on := range st.On {
			if on.Event == event {
				for _, t := range on.Transitions {
					add(t.Set)
				}
			}
		}
	}
	for _, ev := range x.spec.Events {
		if ev.Name == event {
			add(ev.Set)
		}
	}
	return out
}

// payloadKey is how comparedValues names a payload field: event.payload.FIELD.
func payloadKey(field string) string { return mspec.VarEvent + ".payload." + field }
