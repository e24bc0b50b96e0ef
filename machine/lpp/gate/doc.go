// Package gate is L++'s gate language: the Python-like guards of a
// blueprint's transitions (`x is None`, `not approved`, `len(items) > 0`,
// `_state == "review"`), parsed with the column of every part (Parse,
// Node) and translated into expr with lpp's meaning for each construct
// (Translate, TranslateIn with the blueprint's property types; a
// construct the translator cannot express is an *Error with its column),
// and back: PrintGate writes an expr guard as the gate that means it, for
// `lppctl export --format lpp` (print.go; a construct with no gate
// equivalent is a *PrintError).
//
// It stands apart from machine/lpp, which imports it, because it needs
// nothing of a blueprint but its property types and positions in one
// string: the blueprint model, loading, the translation to a spec and back
// stay in machine/lpp. Of the module it imports only machine/spec, for the
// spec model's did-you-mean hints; it must not import machine/lpp or the
// runtime, nor anything of LLMs, tools or skills.
package gate
