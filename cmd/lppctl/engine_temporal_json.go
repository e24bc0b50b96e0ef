package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// writeRunJSON writes v (an object, as runs show --json --temporal gives a
// run) on one line, with recs as its "records": each step with its maps
// whole, as it was after its step, written as it is walked. Held whole at
// once, the steps of a map that grows at every step are quadratic in the
// run's length (20,000 steps of a 200-byte key: tens of GB); a step at a
// time, the client holds the run's light records and one map.
func writeRunJSON(w io.Writer, v any, recs []*machine.Record) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	head := bytes.TrimRight(buf.Bytes(), "\n")
	if len(recs) == 0 || len(head) < 2 || head[len(head)-1] != '}' {
		_, _ = bw.Write(head)
		_ = bw.WriteByte('\n')
		return bw.Flush()
	}
	_, _ = bw.Write(head[:len(head)-1])
	if len(head) > 2 { // not {}
		_ = bw.WriteByte(',')
	}
	_, _ = bw.WriteString(`"records":[`)
	var walk runstore.Walker
	for i, rec := range recs {
		buf.Reset()
		if err := enc.Encode(walk.Next(rec)); err != nil {
			return err
		}
		if i > 0 {
			_ = bw.WriteByte(',')
		}
		if _, err := bw.Write(bytes.TrimRight(buf.Bytes(), "\n")); err != nil {
			return err
		}
	}
	_, _ = bw.WriteString("]}\n")
	return bw.Flush()
}
