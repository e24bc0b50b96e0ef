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
// pair) of a million pairs, that is 10 MiB more at the check's peak. With an
// arena (check_arena.go), every chunk is a block of it, whose pages cost
// memory only once written; without one, the first chunk grows as a slice
// does, so a small check allocates little. T holds no pointers.
type chunked[T any] struct {
	chunks [][]T
	n      int
	arena  *arena
}

func (c *chunked[T]) push(v T) {
	switch {
	case c.arena != nil && c.n&(chunkLen-1) == 0:
		c.chunks = append(c.chunks, arenaSlice[T](c.arena, chunkLen)[:0])
	case c.n&(chunkLen-1) == 0 && c.n > 0:
		c.chunks = append(c.chunks, make([]T, 0, chunkLen))
	case c.chunks == nil:
		c.chunks = [][]T{nil}
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, v)
	c.n++
}

func (c *chunked[T]) at(i int) T { return c.chunks[i>>chunkBits][i&(chunkLen-1)] }

// ptr returns the address of element i, to change it in place.
func (c *chunked[T]) ptr(i int) *T { return &c.chunks[i>>chunkBits][i&(chunkLen-1)] }

func (c *chunked[T]) len() int { return c.n }
