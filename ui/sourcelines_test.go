package ui

import (
	"testing"

	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/stretchr/testify/require"
)

// The spec page puts each diagnostic under the line its position names:
// the page's lines must break where the positions do, at a lone \r (an old
// Mac file) and \r\n as at \n.
func TestTheSpecPageBreaksLinesWhereDiagnosticsCountThem(t *testing.T) {
	diag := mspec.Diagnostics{{Severity: mspec.SevError, Pos: mspec.Pos{Line: 3, Col: 7}, Msg: "bad"}}
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"lf", "a: 1\nb: 2\nc: oops\n", []string{"a: 1", "b: 2", "c: oops"}},
		{"crlf", "a: 1\r\nb: 2\r\nc: oops\r\n", []string{"a: 1", "b: 2", "c: oops"}},
		{"cr", "a: 1\rb: 2\rc: oops\r", []string{"a: 1", "b: 2", "c: oops"}},
		{"no final break", "a: 1\nb: 2\nc: oops", []string{"a: 1", "b: 2", "c: oops"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := sourceLines([]byte(tt.src), diag)
			var texts []string
			for _, l := range lines {
				texts = append(texts, l.Text)
			}
			require.Equal(t, tt.want, texts)
			require.Equal(t, []string{"error 3:7: bad"}, lines[2].Diags)
		})
	}
	require.Len(t, sourceLines(nil, nil), 1, "an empty file shows one empty line")
}
