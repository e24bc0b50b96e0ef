package spec

import "reflect"

// Nullable payload fields. A payload field declared `nullable: true` may be
// null: an optional one the payload leaves out is null rather than its
// type's zero value, and expressions read it untyped (its Go type in the
// event's struct is any), so that `event.payload.x == nil` tells a missing
// field. Imported L++ blueprints declare their payload fields so: a field
// an event does not carry is None in lpp. Fields are not nullable unless
// declared so.

// payloadNullable decodes the `nullable:` key of a payload field's mapping.
func (d *decoder) payloadNullable(f map[string]field, pf *PayloadField) {
	d.nullable(f, &pf.Var)
}

// payloadFieldType is the Go type of a payload field in its event's struct.
func PayloadFieldType(f *PayloadField) reflect.Type {
	if f.Nullable || f.Type == TypeAny {
		return reflect.TypeFor[any]()
	}
	return reflect.TypeOf(f.Type.Zero())
}
