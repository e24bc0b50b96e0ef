package actions

// The person's terminal: one line asked for and read, a read that a Ctrl-C
// leaves behind taken by the next ask.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
)

// Ask prints prompt and reads one line; ok is false when there is no
// terminal or it is closed. A Ctrl-C (ctx cancelled) ends the wait with
// ctx's error, which the action returns: the run stops as interrupted in the
// state that asked, and a resume asks again.
func (d *Deps) Ask(ctx context.Context, prompt string) (line string, ok bool, err error) {
	if !d.Interactive {
		return "", false, nil
	}
	r := d.lineReader()
	if r == nil {
		return "", false, nil
	}
	fmt.Fprint(d.Output(), prompt)
	line, err = d.readLine(ctx, r)
	if cerr := ctx.Err(); cerr != nil {
		fmt.Fprintln(d.Output()) // end the prompt's line
		return "", false, cerr
	}
	if err != nil && (err != io.EOF || line == "") {
		return "", false, nil
	}
	return strings.TrimSpace(line), true, nil
}

// lineRead is one line read from the person's terminal.
type lineRead struct {
	line string
	err  error
}

// readLine reads a line from r, the terminal's reader, unless ctx ends
// first. The read itself cannot be interrupted: it goes on, and the next
// readLine takes its line rather than start a second read.
func (d *Deps) readLine(ctx context.Context, r *bufio.Reader) (string, error) {
	d.mu.Lock()
	ch := d.pending
	if ch == nil {
		ch = make(chan lineRead, 1)
		d.pending = ch
		go func() {
			line, err := r.ReadString('\n')
			ch <- lineRead{line, err}
		}()
	}
	d.mu.Unlock()
	select {
	case res := <-ch:
		d.mu.Lock()
		d.pending = nil
		d.mu.Unlock()
		return res.line, res.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
