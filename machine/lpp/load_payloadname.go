package lpp

// Payload fields whose names are not identifiers (`event.payload.file-path`,
// `event.payload.名`). lpp reads any key of a payload dict; lppctl's event
// payloads are records of declared fields, whose names are identifiers
// (spec.md), so lppctl cannot read such a field: the action or gate that
// reads it is refused where it names it, with the rename to make.

import (
	"fmt"
	"strings"

	"github.com/lppctl/lppctl/machine/lpp/gate"
	"github.com/lppctl/lppctl/machine/lpp/jsonpos"
)

// badFieldWhy is why lppctl cannot read the field.
const badFieldWhy = "lppctl's event payloads are records whose field names are identifiers, so lppctl cannot read it (lpp reads any key)"

// badPayloadField returns the first key of the path src after
// event.payload. when it is not an identifier, else "".
func badPayloadField(src string) string {
	f, ok := strings.CutPrefix(src, "event.payload.")
	if !ok {
		return ""
	}
	root, _, _ := strings.Cut(f, ".")
	if gate.IdentRE.MatchString(root) {
		return ""
	}
	return root
}

// payloadFieldNode returns the first value_from, input_map or payload_map
// value of an action that reads a payload field lppctl cannot name.
func payloadFieldNode(obj *jsonpos.Node) *jsonpos.Node {
	if v := obj.Get("value_from"); v != nil && v.Kind == jsonpos.String && badPayloadField(v.Str) != "" {
		return v
	}
	for _, key := range []string{"input_map", "payload_map"} {
		m := obj.Get(key)
		if m == nil || m.Kind != jsonpos.Object {
			continue
		}
		for _, kv := range m.Members {
			if kv.Val.Kind == jsonpos.String && badPayloadField(kv.Val.Str) != "" {
				return kv.Val
			}
		}
	}
	return nil
}

func badFieldMsg(action, f string) string {
	return fmt.Sprintf("action %q reads payload field %q, whose name is not an identifier", action, f)
}

// badFieldHint names the rename to make.
func badFieldHint(f string) string {
	h := "rename the field, in the blueprint and in the events its callers send, to letters, digits and underscores (not starting with a digit)"
	if s := sanitize(f); strings.ContainsFunc(s, func(r rune) bool { return r != '_' }) {
		h += fmt.Sprintf(", e.g. %q", s)
	}
	return h
}
