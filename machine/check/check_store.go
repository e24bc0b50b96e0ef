package check

import "math/bits"

// The visited set, exact and compact. Every distinct value a slot takes is
// interned once (valueTable: an id per value), and a (state, context) pair is
// stored as a fixed-size record of words: the state's index, then the id of
// the value of each stored slot (the slots live in some state; a slot
// dead everywhere is always its default and is not stored). A record's words
// take 16 bits while every id and state index fits, 32 bits after (the
// store is widened once, when the first larger one comes). Records sit in
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
	width  int        // words per record
	narrow [][]uint16 // recordChunk records each, while every word fits 16 bits
	wide   [][]uint32 // then these
	isWide bool
	n      int      // records stored
	table  []uint64 // 0: empty; else the record's tag (its hash's high 32 bits), then id+1; a record's first slot is tag & mask
	mask   uint64
}

func newPairStore(width int) *pairStore {
	return &pairStore{width: width, table: make([]uint64, 1024), mask: 1023}
}

// record copies the record of id into buf.
func (s *pairStore) record(id int32, buf []uint32) []uint32 {
	off := int(id%recordChunk) * s.width
	buf = buf[:0]
	if s.isWide {
		return append(buf, s.wide[id/recordChunk][off:off+s.width]...)
	}
	for _, w := range s.narrow[id/recordChunk][off : off+s.width] {
		buf = append(buf, uint32(w))
	}
	return buf
}

// word returns word i of the record of id.
func (s *pairStore) word(id int32, i int) uint32 {
	off := int(id%recordChunk)*s.width + i
	if s.isWide {
		return s.wide[id/recordChunk][off]
	}
	return uint32(s.narrow[id/recordChunk][off])
}

// equal reports whether the record of id is r.
func (s *pairStore) equal(id int32, r []uint32) bool {
	off := int(id%recordChunk) * s.width
	if s.isWide {
		return equalWords(s.wide[id/recordChunk][off:off+s.width], r)
	}
	for i, w := range s.narrow[id/recordChunk][off : off+s.width] {
		if uint32(w) != r[i] {
			return false
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
	if !s.isWide {
		for _, w := range r {
			if w > 0xFFFF {
				s.widen()
				break
			}
		}
	}
	if s.isWide {
		if s.n%recordChunk == 0 {
			s.wide = append(s.wide, make([]uint32, 0, recordChunk*s.width))
		}
		c := &s.wide[len(s.wide)-1]
		*c = append(*c, r...)
	} else {
		if s.n%recordChunk == 0 {
			s.narrow = append(s.narrow, make([]uint16, 0, recordChunk*s.width))
		}
		c := &s.narrow[len(s.narrow)-1]
		for _, w := range r {
			*c = append(*c, uint16(w))
		}
	}
	s.n++
	s.table[slot] = tag | uint64(id+1)
	if uint64(s.n)*4 >= uint64(len(s.table))*3 && len(s.table) < 1<<32 { // load 3/4: double (the tag indexes up to 2^32 slots)
		s.grow()
	}
	return id
}

// widen moves the records to 32-bit words.
func (s *pairStore) widen() {
	for _, c := range s.narrow {
		w := make([]uint32, len(c), recordChunk*s.width)
		for i, v := range c {
			w[i] = uint32(v)
		}
		s.wide = append(s.wide, w)
	}
	s.narrow, s.isWide = nil, true
}

func (s *pairStore) grow() {
	old := s.table
	s.table = make([]uint64, 2*len(old))
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
