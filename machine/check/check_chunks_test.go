package check

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChunkedKeepsEveryElementAcrossChunks: pushed elements read back in
// order at every length around a chunk's end, and a full chunk is never
// moved (its first element's address stays).
func TestChunkedKeepsEveryElementAcrossChunks(t *testing.T) {
	for _, n := range []int{0, 1, chunkLen - 1, chunkLen, chunkLen + 1, 3*chunkLen + 7} {
		var c chunked[int32]
		var first *int32
		for i := range n {
			c.push(int32(i * 3))
			if i == chunkLen {
				first = &c.chunks[0][0]
			}
		}
		require.Equal(t, n, c.len())
		for i := range n {
			require.Equal(t, int32(i*3), c.at(i), "element %d of %d", i, n)
		}
		if first != nil {
			require.Same(t, first, &c.chunks[0][0], "the first chunk moved")
			for i, ch := range c.chunks[1:] {
				require.Equal(t, chunkLen, cap(ch), "chunk %d", i+1)
			}
		}
	}
}
