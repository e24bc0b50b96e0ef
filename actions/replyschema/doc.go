// Package replyschema is the JSON Schema a model's reply must satisfy
// (llm.generate's schema parameter): loaded from an inline map or a JSON or
// YAML file, refused when it holds keywords JSON Schema does not have, and
// used to validate a reply, with the library's errors written in JSON terms
// ("[1,2] is an array, not an object"), and to type the variables a reply's
// fields are mapped into. DeclareNotNull, DeclareValues and
// DeclareOutputValues tell the model checker what an inline schema lets a
// reply write into those variables (no null, an enum's values, valid JSON
// texts). It reads no file itself: the caller passes the
// reader that refuses what the model may not see.
package replyschema
