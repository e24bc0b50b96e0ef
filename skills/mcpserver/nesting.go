package mcpserver

// nesting follows the brackets of JSON text fed to it line by line, in time
// linear in the text: it tells when a message spread over several lines has
// closed its first bracket, without parsing the whole message again at
// every line (which made a pretty-printed message of 100,000 lines take
// minutes). It does not check the syntax: the message is checked whole
// once it is closed.
type nesting struct {
	depth  int
	inStr  bool
	escape bool
	broken bool // a newline inside a string: the text can never be valid
}

// feed follows the brackets of data.
func (n *nesting) feed(data []byte) {
	for _, c := range data {
		switch {
		case n.broken:
			return
		case n.inStr && n.escape:
			n.escape = false
		case n.inStr && c == '\\':
			n.escape = true
		case n.inStr && c == '"':
			n.inStr = false
		case n.inStr && c == '\n':
			n.broken = true
		case n.inStr:
		case c == '"':
			n.inStr = true
		case c == '{' || c == '[':
			n.depth++
		case c == '}' || c == ']':
			n.depth--
		}
	}
}

// closed reports whether the text fed so far closed its outermost bracket
// (or closed more than it opened), or can never become valid JSON.
func (n *nesting) closed() bool { return n.broken || n.depth <= 0 }
