package temporal

import (
	"encoding/json"

	"github.com/lppctl/lppctl/machine"
)

// SetChunking sets c's chunk sizes: a list or string over min bytes of JSON
// in leaves of target bytes, group references to a blob.
func SetChunking(c *Codec, min, target, group int) { c.chunks = chunking{min, target, group} }

// EncodeSteps is how an execution's records are stored (execRecords'
// segment, for a codec of the default blob limit).
func EncodeSteps(recs []*machine.Record) (json.RawMessage, error) {
	x := execRecords{recs: recs}
	return x.segment(DefaultBlobLimit)
}

// Pieces is pieces, and PieceSize pieceSize: how step lines are cut.
var (
	Pieces    = pieces
	PieceSize = pieceSize
)
