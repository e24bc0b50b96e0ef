// Package yamltext writes the YAML text of a translated blueprint: scalars
// and keys quoted as YAML reads them back (Quote, Key, Value), the runes a
// YAML file cannot hold escaped (Unprintable, Printable), and long free
// texts kept out of the text as placeholders (Texts), which the YAML decoder
// would otherwise copy several times.
package yamltext
