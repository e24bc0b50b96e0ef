// Package jsonpos decodes an L++ blueprint's JSON text keeping the position
// of every value (Scan): line and column counted as lppctl's diagnostics
// count them, the byte span of each value's text, and the column of each
// character of a string on one line (for positions inside a gate's
// expression). It reads as Python's json does, and so lpp's loader: an
// object keeps the last value of a repeated key in the place of the first,
// and NaN, Infinity, -Infinity and numbers beyond a 64-bit float are read
// and marked (Node.Py) rather than refused. It bounds what it reads
// (MaxValues, a nesting depth) and never panics. It knows no blueprint:
// machine/lpp decodes one from the Node tree.
package jsonpos
