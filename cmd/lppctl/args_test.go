package main

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestInterspersedMovesFlagsBeforeArguments(t *testing.T) {
	app := newApp(strings.NewReader(""), io.Discard, io.Discard)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"flags after the spec", "lppctl run s.yaml --var n=1 -q", "lppctl run --var n=1 -q s.yaml"},
		{"flag with = keeps its value", "lppctl run s.yaml --var=n=1", "lppctl run --var=n=1 s.yaml"},
		{"already in order", "lppctl run --spec s.yaml", "lppctl run --spec s.yaml"},
		{"double dash stops reordering", "lppctl run s.yaml -- --var", "lppctl run s.yaml -- --var"},
		{"unknown command untouched", "lppctl nope a -x", "lppctl nope a -x"},
		{"no command", "lppctl", "lppctl"},
		{"global flags before the command", "lppctl --log-level debug run s.yaml --var n=1", "lppctl --log-level debug run --var n=1 s.yaml"},
		{"a global flag with =", "lppctl --log-level=debug run s.yaml -q", "lppctl --log-level=debug run -q s.yaml"},
		{"--help after arguments shows the command's help", "lppctl import lpp --help", "lppctl import --help"},
		{"-h after the spec", "lppctl run s.yaml -h", "lppctl run -h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, strings.Join(interspersed(app, strings.Fields(tt.in)), " "), "interspersed(%q)", tt.in)
		})
	}
}
