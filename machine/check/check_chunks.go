package check

// chunkBits sets the elements of a chunk of a chunked sequence: 65,536.
const (
	chunkBits = 16
	chunkLen  = 1 << chunkBits
)

// chunked is an append-only sequence kept in chunks of chunkLen elements
// that never move: growing it copies nothing. A slice grown by append copies
// its array into one 1.25 times larger and both stay until the next
// collection: with the successors (4 bytes each) and the nodes (8 bytes a
// pair) of a million pairs, that is 10 MiB more at the check's peak. The
// first chunk grows as a slice does, so a small check allocates little.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

func (c *chunked[T]) push(v T) {
	if c.n&(chunkLen-1) == 0 && c.n > 0 {
		c.chunks = append(c.chunks, make([]T, 0, chunkLen))
	} else if c.chunks == nil {
		c.chunks = [][]T{nil}
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, v)
	c.n++
}

func (c *chunked[T]) at(i int) T { return c.chunks[i>>chunkBits][i&(chunkLen-1)] }

func (c *chunked[T]) len() int { return c.n }
