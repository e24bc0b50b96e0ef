package check

import (
	"encoding/binary"
	"math/bits"
)

// The visited set, exact and compact. Every distinct value a slot takes is
// interned once (valueTable: an id per value), and a (state, context) pair is
// stored as a fixed-size record of words: the state's index, then the id of
// the value of each stored slot (the slots live in some state; a slot
// dead everywhere is always its default and is not stored). A record's words
// take 8 bits while every id and state index fits, then 16, then 32 (the
// store is re-encoded when the first larger one comes). Records sit in
// fixed-size chunks, never moved, and an open-addressing table maps a record
// to its node id. Two pairs are one only when their records are equal, so no
// pair is ever lost to a hash collision.

// valueTable interns values: equal values (as appendValue encodes them:
// type-tagged, maps with their keys sorted) get the same id, and values[id]
// is the first value seen.
type valueTable struct {
	values []any
	small  [smallInts]uint32 // ids of the ints 0 to smallInts-1 (0: not seen; id 0 is nil)
	ints   map[int]uint32
	strs   map[string]uint32
	other  map[string]uint32 // appendValue's encoding → id: floats, lists, maps, nil, ...
	bools  [2]uint32         // ids of false and true, 0 until seen (id 0 is never a bool: see newValueTable)
	buf    []byte
}

func newValueTable() *valueTable {
	t := &valueTable{ints: map[int]uint32{}, strs: map[string]uint32{}, other: map[string]uint32{}}
	t.id(nil) // id 0 is nil, so that a zero bools entry means "not seen"
	return t
}

// smallInts bounds the ints whose ids an array holds.
const smallInts = 1024

func (t *valueTable) id(v any) uint32 {
	switch x := v.(type) {
	case int:
		if uint(x) < smallInts && t.small[x] != 0 {
			return t.small[x]
		}
		return t.intID(x)
	case string:
		if id, ok := t.strs[x]; ok {
			return id
		}
		id := t.push(v)
		t.strs[x] = id
		return id
	case bool:
		b := 0
		if x {
			b = 1
		}
		if t.bools[b] == 0 {
			t.bools[b] = t.push(v)
		}
		return t.bools[b]
	}
	t.buf = appendValue(t.buf[:0], v)
	if id, ok := t.other[string(t.buf)]; ok {
		return id
	}
	id := t.push(v)
	t.other[string(t.buf)] = id
	return id
}

// intID is id for an int.
func (t *valueTable) intID(n int) uint32 {
	if uint(n) < smallInts {
		if id := t.small[n]; id != 0 {
			return id
		}
	}
	id, ok := t.ints[n]
	if !ok {
		id = t.push(n)
		t.ints[n] = id
	}
	if uint(n) < smallInts {
		t.small[n] = id
	}
	return id
}

func (t *valueTable) push(v any) uint32 {
	t.values = append(t.values, v)
	return uint32(len(t.values) - 1)
}

// recordChunk is the number of records per chunk of pairStore.
const recordChunk = 1 << 14

// pairStore holds the records of the stored pairs, by node id, and finds a
// record's id. The lookup table is open addressing with linear probing, at
// most 7/8 full, of 4-byte entries: id+1 in the low idBits bits (enough for
// the check's MaxStates), and above them a tag, the high bits of the
// record's hash, which rules out most slots without reading their record
// (16 entries to a cache line: the longer probes of a fuller table cost
// little; at 3/4 the table took a sixth more memory, and the checks
// measured ran no faster). A
// record is hashed and compared as it is stored (its encoded bytes), so
// growing the table rehashes the records in id order, reading them
// sequentially.
type pairStore struct {
	width  int      // words per record
	size   int      // bytes a word: 1 while every word fits 8 bits, then 2, then 4
	chunks [][]byte // recordChunk records each
	n      int      // records stored
	table  []uint32 // 0: empty; else tag<<idBits | id+1
	mask   uint64
	idBits uint
	arena  *arena // where the chunks and the table are allocated (nil: the heap)
	enc    []byte // scratch: the record being looked up, encoded (unless short)
	fits   bool   // every word of the record encoded fits s.size bytes
	key    uint64 // the record encoded, as a number, when records are short
}

// short reports whether a record takes at most 8 bytes: it is then hashed
// and compared as one 64-bit number (a chunk has 8 bytes of room after its
// last record, so that any record can be read so).
func (s *pairStore) short() bool { return s.width*s.size <= 8 }

// keyMask keeps a short record's bytes of a 64-bit read.
func (s *pairStore) keyMask() uint64 {
	if n := s.width * s.size; n < 8 {
		return 1<<(8*n) - 1
	}
	return ^uint64(0)
}

// keyOf reads the short record of id as a number.
func (s *pairStore) keyOf(id int32) uint64 {
	off := int(id%recordChunk) * s.width * s.size
	return binary.LittleEndian.Uint64(s.chunks[id/recordChunk][off:off+8]) & s.keyMask()
}

// hashKey hashes a short record.
func hashKey(k uint64) uint64 { return mix64(mix64(k ^ 0x9E3779B97F4A7C15)) }

// hashOf hashes the record of id.
func (s *pairStore) hashOf(id int32) uint64 {
	if s.short() {
		return hashKey(s.keyOf(id))
	}
	return hashBytes(s.bytes(id))
}

// newPairStore makes a store of records of width words, for ids below
// maxIDs.
func newPairStore(width, maxIDs int, a *arena) *pairStore {
	idBits := uint(bits.Len(uint(maxIDs)))
	if idBits > 31 {
		idBits = 31 // ids are int32: at least one bit of tag
	}
	return &pairStore{width: width, size: 1, table: arenaSlice[uint32](a, 1024), mask: 1023, idBits: idBits, arena: a}
}

// newChunk allocates an empty chunk for recordChunk records of the store's width.
func (s *pairStore) newChunk() []byte {
	return arenaSlice[byte](s.arena, recordChunk*s.width*s.size+8)[:0] // +8: see short
}

// dropTable gives back the lookup table: no record is found after.
func (s *pairStore) dropTable() {
	arenaFree(s.arena, s.table)
	s.table = nil
}

// bytes returns the encoded record of id.
func (s *pairStore) bytes(id int32) []byte {
	n := s.width * s.size
	off := int(id%recordChunk) * n
	return s.chunks[id/recordChunk][off : off+n]
}

// wordOf decodes word i of an encoded record.
func (s *pairStore) wordOf(b []byte, i int) uint32 {
	switch s.size {
	case 1:
		return uint32(b[i])
	case 2:
		return uint32(binary.LittleEndian.Uint16(b[2*i:]))
	default:
		return binary.LittleEndian.Uint32(b[4*i:])
	}
}

// record copies the record of id into buf.
func (s *pairStore) record(id int32, buf []uint32) []uint32 {
	b := s.bytes(id)
	buf = buf[:0]
	for i := range s.width {
		buf = append(buf, s.wordOf(b, i))
	}
	return buf
}

// word returns word i of the record of id.
func (s *pairStore) word(id int32, i int) uint32 {
	return s.wordOf(s.bytes(id), i)
}

// hashRecord hashes words (the memo's keys).
func hashRecord(r []uint32) uint64 {
	h := uint64(len(r)) * 0x9E3779B97F4A7C15
	for _, w := range r {
		h = mix64(h ^ uint64(w))
	}
	return h
}

func mix64(x uint64) uint64 {
	hi, lo := bits.Mul64(x, 0xBF58476D1CE4E5B9)
	return hi ^ lo
}

// hashBytes hashes an encoded record, 8 bytes at a time.
func hashBytes(b []byte) uint64 {
	h := uint64(len(b)) * 0x9E3779B97F4A7C15
	for len(b) >= 8 {
		h = mix64(h ^ binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	if len(b) > 0 {
		var t uint64
		for i, c := range b {
			t |= uint64(c) << (8 * i)
		}
		h = mix64(h ^ t)
	}
	return mix64(h)
}

func equalWords(a, b []uint32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// encode encodes r into s.enc in words of s.size bytes; s.fits tells
// whether every word fits (a record with a larger word is stored in no
// table yet: insert widens the store first).
func (s *pairStore) encode(r []uint32) {
	if s.short() {
		s.encodeShort(r)
		return
	}
	n := len(r) * s.size
	if cap(s.enc) < n {
		s.enc = make([]byte, n)
	}
	enc := s.enc[:n]
	s.enc, s.fits = enc, false
	switch s.size {
	case 1:
		for i, w := range r {
			if w > 0xFF {
				return
			}
			enc[i] = byte(w)
		}
	case 2:
		for i, w := range r {
			if w > 0xFFFF {
				return
			}
			binary.LittleEndian.PutUint16(enc[2*i:], uint16(w))
		}
	default:
		for i, w := range r {
			binary.LittleEndian.PutUint32(enc[4*i:], w)
		}
	}
	s.fits = true
}

// encodeShort is encode for a record of at most 8 bytes: only s.key.
func (s *pairStore) encodeShort(r []uint32) {
	var key uint64
	s.fits = false
	switch s.size {
	case 1:
		for i, w := range r {
			if w > 0xFF {
				return
			}
			key |= uint64(w) << (8 * i)
		}
	case 2:
		for i, w := range r {
			if w > 0xFFFF {
				return
			}
			key |= uint64(w) << (16 * i)
		}
	default:
		for i, w := range r {
			key |= uint64(w) << (32 * i)
		}
	}
	s.key, s.fits = key, true
}

// hashEnc hashes the record encode encoded.
func (s *pairStore) hashEnc() uint64 {
	if s.short() {
		return hashKey(s.key)
	}
	return hashBytes(s.enc)
}

// find returns the id of the stored record equal to r, or -1 and the slot
// where insert puts it.
func (s *pairStore) find(r []uint32) (int32, uint64) {
	s.encode(r)
	if !s.fits {
		return -1, 0
	}
	return s.lookup(s.hashEnc())
}

// lookup finds the record encode encoded, whose hash is h.
func (s *pairStore) lookup(h uint64) (int32, uint64) {
	tag := uint32(h>>32) >> s.idBits << s.idBits
	idMask := uint32(1)<<s.idBits - 1
	short := s.short()
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		e := s.table[i]
		if e == 0 {
			return -1, i
		}
		if e&^idMask == tag {
			id := int32(e&idMask) - 1
			if short && s.keyOf(id) == s.key || !short && string(s.bytes(id)) == string(s.enc) {
				return id, i
			}
		}
	}
}

// insert stores r, which find did not find, as the next id, at the slot
// find returned.
func (s *pairStore) insert(r []uint32, slot uint64) int32 {
	id := int32(s.n)
	if !s.fits {
		s.widen(r) // re-encodes the records and rebuilds the table
		s.encode(r)
		_, slot = s.lookup(s.hashEnc())
	}
	if s.n%recordChunk == 0 {
		s.chunks = append(s.chunks, s.newChunk())
	}
	if s.short() {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], s.key)
		s.chunks[len(s.chunks)-1] = append(s.chunks[len(s.chunks)-1], b[:s.width*s.size]...)
	} else {
		s.chunks[len(s.chunks)-1] = append(s.chunks[len(s.chunks)-1], s.enc...)
	}
	s.n++
	s.table[slot] = s.entry(s.hashEnc(), id)
	if uint64(s.n)*8 >= uint64(len(s.table))*7 { // load 7/8: double
		s.rebuild(2 * len(s.table))
	}
	return id
}

// entry is the table entry of id, whose record hashes to h.
func (s *pairStore) entry(h uint64, id int32) uint32 {
	return uint32(h>>32)>>s.idBits<<s.idBits | uint32(id+1)
}

// appendRecord appends r encoded in words of s.size bytes.
func (s *pairStore) appendRecord(c []byte, r []uint32) []byte {
	for _, w := range r {
		switch s.size {
		case 1:
			c = append(c, byte(w))
		case 2:
			c = binary.LittleEndian.AppendUint16(c, uint16(w))
		default:
			c = binary.LittleEndian.AppendUint32(c, w)
		}
	}
	return c
}

// widen re-encodes the records in words wide enough for r's (2 or 4 bytes),
// and rebuilds the table (a record's hash is its encoding's).
func (s *pairStore) widen(r []uint32) {
	size := 2
	for _, w := range r {
		if w > 0xFFFF {
			size = 4
		}
	}
	old := *s
	s.size, s.chunks = size, make([][]byte, len(old.chunks))
	for i, c := range old.chunks {
		n := len(c) / (old.width * old.size)
		w := s.newChunk()
		for id := range n {
			w = s.appendRecord(w, old.record(int32(i*recordChunk+id), nil))
		}
		s.chunks[i] = w
	}
	for _, c := range old.chunks {
		arenaFree(s.arena, c)
	}
	s.rebuild(len(s.table))
}

// rebuild makes a table of size slots and enters every record, in id
// order.
func (s *pairStore) rebuild(size int) {
	old := s.table
	defer arenaFree(s.arena, old)
	s.table = arenaFilled[uint32](s.arena, size) // rehashing writes all over it
	s.mask = uint64(size - 1)
	for id := range int32(s.n) {
		h := s.hashOf(id)
		i := h & s.mask
		for s.table[i] != 0 {
			i = (i + 1) & s.mask
		}
		s.table[i] = s.entry(h, id)
	}
}
