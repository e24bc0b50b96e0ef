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

func (t *valueTable) id(v any) uint32 {
	switch x := v.(type) {
	case int:
		if id, ok := t.ints[x]; ok {
			return id
		}
		id := t.push(v)
		t.ints[x] = id
		return id
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

func (t *valueTable) push(v any) uint32 {
	t.values = append(t.values, v)
	return uint32(len(t.values) - 1)
}

// recordChunk is the number of records per chunk of pairStore.
const recordChunk = 1 << 14

// pairStore holds the records of the stored pairs, by node id, and finds a
// record's id.
type pairStore struct {
	width  int      // words per record
	size   int      // bytes a word: 1 while every word fits 8 bits, then 2, then 4
	chunks [][]byte // recordChunk records each
	n      int      // records stored
	table  []uint64 // 0: empty; else the record's tag (its hash's high 32 bits), then id+1; a record's first slot is tag & mask
	mask   uint64
	arena  *arena // where the chunks and the table are allocated (nil: the heap)
}

func newPairStore(width int, a *arena) *pairStore {
	return &pairStore{width: width, size: 1, table: arenaSlice[uint64](a, 1024), mask: 1023, arena: a}
}

// newChunk allocates an empty chunk for recordChunk records of the store's width.
func (s *pairStore) newChunk() []byte {
	return arenaSlice[byte](s.arena, recordChunk*s.width*s.size)[:0]
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

// equal reports whether the record of id is r.
func (s *pairStore) equal(id int32, r []uint32) bool {
	b := s.bytes(id)
	switch s.size {
	case 1:
		for i, w := range b {
			if uint32(w) != r[i] {
				return false
			}
		}
	case 2:
		for i := range r {
			if uint32(binary.LittleEndian.Uint16(b[2*i:])) != r[i] {
				return false
			}
		}
	default:
		for i := range r {
			if binary.LittleEndian.Uint32(b[4*i:]) != r[i] {
				return false
			}
		}
	}
	return true
}

func hashRecord(r []uint32) uint64 {
	h := uint64(len(r)) * 0x9E3779B97F4A7C15
	for _, w := range r {
		hi, lo := bits.Mul64(h^uint64(w), 0xBF58476D1CE4E5B9)
		h = hi ^ lo
	}
	return h
}

// find returns the id of the stored record equal to r, or -1 and the slot
// and tag insert takes.
func (s *pairStore) find(r []uint32) (int32, uint64, uint64) {
	tag := hashRecord(r) &^ 0xFFFFFFFF
	for i := (tag >> 32) & s.mask; ; i = (i + 1) & s.mask {
		e := s.table[i]
		if e == 0 {
			return -1, i, tag
		}
		if e&^0xFFFFFFFF == tag {
			id := int32(e&0xFFFFFFFF) - 1
			if s.equal(id, r) {
				return id, i, tag
			}
		}
	}
}

func equalWords(a, b []uint32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// insert stores r as the next id, at the table slot find returned.
func (s *pairStore) insert(r []uint32, slot, tag uint64) int32 {
	id := int32(s.n)
	for _, w := range r {
		if w > 0xFF && s.size == 1 || w > 0xFFFF && s.size == 2 {
			s.widen(r)
			break
		}
	}
	if s.n%recordChunk == 0 {
		s.chunks = append(s.chunks, s.newChunk())
	}
	s.chunks[len(s.chunks)-1] = s.appendRecord(s.chunks[len(s.chunks)-1], r)
	s.n++
	s.table[slot] = tag | uint64(id+1)
	if uint64(s.n)*4 >= uint64(len(s.table))*3 && len(s.table) < 1<<32 { // load 3/4: double (the tag indexes up to 2^32 slots)
		s.grow()
	}
	return id
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

// widen re-encodes the records in words wide enough for r's (2 or 4 bytes).
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
}

func (s *pairStore) grow() {
	old := s.table
	defer arenaFree(s.arena, old)
	s.table = arenaFilled[uint64](s.arena, 2*len(old)) // rehashing writes all over it
	s.mask = uint64(len(s.table) - 1)
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := (e >> 32) & s.mask // the tag: no record is read
		for s.table[i] != 0 {
			i = (i + 1) & s.mask
		}
		s.table[i] = e
	}
}
