package replyschema

import (
	"fmt"
	"strings"
)

// Arrays in a reply: replyjson.Array finds one in prose for a schema whose top is
// an array.

// WantsArray reports whether the schema takes only a JSON array at its top.
func (rs *Schema) WantsArray() bool {
	return rs != nil && (rs.raw.Type == "array" || (len(rs.raw.Types) == 1 && rs.raw.Types[0] == "array"))
}

// NoArrayError is the error for a reply to an array schema that holds no
// array valid against it, in place of err (which may ask for an object).
func NoArrayError(err error) error {
	if strings.Contains(err.Error(), "JSON object") {
		return fmt.Errorf("the reply holds no JSON array valid against the schema; answer with one JSON array and nothing else")
	}
	return err
}
