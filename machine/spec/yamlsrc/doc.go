// Package yamlsrc reads a spec's YAML as text: its lines as YAML counts
// them (LF, CRLF, CR, NEL, LS, PS), and where a YAML syntax error's
// mistake is (Diagnose), which yaml.v3 reports on a line that is often not
// the mistake's and without a column. It knows nothing of specs: the
// machine/spec decoder turns a Finding into a diagnostic.
package yamlsrc
