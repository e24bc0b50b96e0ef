package temporal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/temporal"
)

// countingStore is a BlobStore in memory that counts the bytes of the
// blobs first stored.
type countingStore struct {
	mu    sync.Mutex
	m     map[string][]byte
	bytes int
	get   func(ref string) ([]byte, error) // when set, answers Get
	put   error                            // when set, every Put fails with it
}

func newCountingStore() *countingStore { return &countingStore{m: map[string][]byte{}} }

func (s *countingStore) Where() string { return "test memory" }

func (s *countingStore) Put(_ context.Context, ref string, b []byte) error {
	if s.put != nil {
		return s.put
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[ref]; !ok {
		s.m[ref] = append([]byte(nil), b...)
		s.bytes += len(b)
	}
	return nil
}

func (s *countingStore) Get(_ context.Context, ref string) ([]byte, error) {
	if s.get != nil {
		return s.get(ref)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.m[ref]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("cannot find blob %s", ref)
}

// A large list, a large string (cut inside multi-byte runes) and a large
// map round-trip through every store, in chunks: the payload holds one
// reference to a tree each, and the items' own large values are references
// too.
func TestCodecStoresLargeListsAndStringsInChunks(t *testing.T) {
	var list []any
	for i := range 20_000 {
		switch i % 4 {
		case 0:
			list = append(list, json.Number(fmt.Sprint(i)))
		case 1:
			list = append(list, fmt.Sprintf("item %d é😀漢", i))
		case 2:
			list = append(list, map[string]any{"n": json.Number(fmt.Sprint(i)), "tags": []any{"a", "b"}})
		default:
			list = append(list, []any{true, nil})
		}
	}
	list[7777] = map[string]any{"big": strings.Repeat("y", 5000)} // a value over the inline size inside a chunk
	table := map[string]any{}
	for i := range 5_000 {
		table[fmt.Sprintf("key \"%d\" é", i)] = fmt.Sprintf("value %d %s", i, strings.Repeat("v", i%50))
	}
	table["big"] = strings.Repeat("z", 5000)
	text := strings.Repeat("ab😀漢é", 70_000) // 840 KB: chunk boundaries fall inside runes
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			dc := temporal.NewCodec(s, 0, 0).DataConverter()
			in := map[string]any{"list": list, "text": text, "table": table}
			p, err := dc.ToPayload(in)
			require.NoError(t, err)
			assert.Less(t, len(p.GetData()), 1024, "the payload holds references")
			assert.Contains(t, string(p.GetData()), `"list:sha256:`)
			assert.Contains(t, string(p.GetData()), `"text:sha256:`)
			assert.Contains(t, string(p.GetData()), `"map:sha256:`)
			var out map[string]any
			require.NoError(t, temporal.NewCodec(s, 0, 0).DataConverter().FromPayload(p, &out), "another process's codec")
			require.Len(t, out["list"], len(list))
			assert.Equal(t, fmt.Sprint(list), fmt.Sprint(out["list"]))
			assert.Equal(t, text, out["text"])
			assert.Equal(t, table, out["table"])
		})
	}
}

// growth sends {"v": grow(step)} through a codec for steps 1 to 160, each
// adding about 1.9 KB (the value 150-300 KB from step 80 on), and checks
// what the store takes: less than most bytes a step over steps 80-160, and
// as much a step at 300 KB as at 225 KB (stored whole, it would grow with
// the value: quadratic). The last payload reads back as the last value.
func growth(t *testing.T, most int, grow func(step int) any) {
	t.Helper()
	s := newCountingStore()
	dc := temporal.NewCodec(s, 0, 0).DataConverter()
	var p *commonpb.Payload
	var v any
	stored := map[int]int{}
	for step := 1; step <= 160; step++ {
		v = grow(step)
		var err error
		p, err = dc.ToPayload(map[string]any{"v": v})
		require.NoError(t, err)
		stored[step] = s.bytes
	}
	perStep := (stored[160] - stored[80]) / 80
	t.Logf("bytes stored per step, steps 80-160: %d", perStep)
	assert.Less(t, perStep, most, "bytes a step")
	assert.Less(t, stored[160]-stored[120], (stored[120]-stored[80])*5/4, "as much a step at 300 KB as at 225 KB")
	var out map[string]any
	require.NoError(t, dc.FromPayload(p, &out))
	assert.Equal(t, v, out["v"])
}

// A list that grows by one item a step costs the store about a chunk a
// step once it is chunked, whatever its length.
func TestGrowingListCostsTheStoreAChunkAStep(t *testing.T) {
	item := strings.Repeat("x", 1890)
	var list []any
	growth(t, 40<<10, func(step int) any {
		list = append(list, fmt.Sprintf("%04d %s", step, item))
		return list
	})
}

// A map that gains a key a step, at any place in its order, costs the store
// a few leaves a step once it is chunked, whatever its size.
func TestGrowingMapCostsTheStoreAFewChunksAStep(t *testing.T) {
	m := map[string]any{}
	growth(t, 100<<10, func(step int) any {
		m[fmt.Sprintf("%08x", uint32(step)*2654435761)] = strings.Repeat("x", 1890) // keys in no order
		return m
	})
}

// xsPayload is a payload with references, {"xs": the value ref stands for}.
func xsPayload(ref string) *commonpb.Payload {
	return &commonpb.Payload{
		Metadata: map[string][]byte{"encoding": []byte("json/plain"), "lppctl-refs": []byte("1")},
		Data:     []byte(`{"xs":{"$lppctl.blob":"` + ref + `"}}`),
	}
}

// A payload of the format before chunks (a large list stored whole) still
// reads; a codec that knows no chunks refuses a chunked reference (it is
// no blob reference) rather than read it as a value; a store whose groups
// nest without end is an error, not a hang.
func TestChunkedReferencesAreReadSafely(t *testing.T) {
	t.Run("the format before chunks", func(t *testing.T) {
		s := newCountingStore()
		var list []any
		for i := range 10_000 {
			list = append(list, fmt.Sprintf("item %d", i))
		}
		b, err := json.Marshal(list)
		require.NoError(t, err)
		ref := temporal.BlobRef(b)
		require.NoError(t, s.Put(context.Background(), ref, b))
		p := xsPayload(ref)
		var out map[string]any
		require.NoError(t, temporal.NewCodec(s, 0, 0).DataConverter().FromPayload(p, &out))
		assert.Equal(t, list, out["xs"])
	})
	t.Run("a codec without chunks", func(t *testing.T) {
		dir, err := temporal.NewDirStore(t.TempDir())
		require.NoError(t, err)
		ref := "list:" + temporal.BlobRef([]byte("[]"))
		_, err = dir.Get(context.Background(), ref)
		assert.EqualError(t, err, fmt.Sprintf("%q is not a blob reference (sha256:HEX)", ref))
	})
	t.Run("groups without end", func(t *testing.T) {
		s := newCountingStore()
		self := temporal.BlobRef([]byte("x"))
		s.get = func(string) ([]byte, error) { return []byte(`["list:` + self + `"]`), nil }
		p := xsPayload("list:" + self)
		var out map[string]any
		err := temporal.NewCodec(s, 0, 0).DataConverter().FromPayload(p, &out)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "cannot decode blob list:"+self+": its chunks nest deeper than 8 groups")
	})
	t.Run("a group that is no list of references", func(t *testing.T) {
		s := newCountingStore()
		group := []byte(`{"not": "a group"}`)
		ref := temporal.BlobRef(group)
		require.NoError(t, s.Put(context.Background(), ref, group))
		p := xsPayload("list:" + ref)
		var out map[string]any
		err := temporal.NewCodec(s, 0, 0).DataConverter().FromPayload(p, &out)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "cannot decode blob "+ref+": it is no group of chunks")
	})
}

// BenchmarkArchiveOfAGrowingList stores what a workflow archives when it
// continues as new (codec.Store of its records) for a run whose list grows
// by a 200-byte item a step: 2,000 records, the list 500 to 2,500 items.
// It runs inside a workflow task, so it must stay well under the task's
// timeout (10 s).
func BenchmarkArchiveOfAGrowingList(b *testing.B) {
	item := strings.Repeat("x", 190)
	var list []any
	for i := range 2500 {
		list = append(list, fmt.Sprintf("%09d %s", i, item))
	}
	records := make([]any, 2000)
	for k := range records {
		records[k] = map[string]any{"seq": k + 1, "vars": map[string]any{"xs": list[:500+k]}}
	}
	data, err := json.Marshal(records)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		dir, err := temporal.NewDirStore(b.TempDir())
		require.NoError(b, err)
		_, err = temporal.NewCodec(dir, 0, 0).Store(data)
		require.NoError(b, err)
	}
}

// BenchmarkArchiveOfAGrowingListAsSteps stores the records of
// BenchmarkArchiveOfAGrowingList as the workflow stores them, step lines
// (the list whole in the first, then the item each step appended):
//
//	go test ./temporal -run '^$' -bench 'ArchiveOfAGrowingList' -benchtime 1x
func BenchmarkArchiveOfAGrowingListAsSteps(b *testing.B) {
	item := strings.Repeat("x", 190)
	var list []any
	for i := range 2500 {
		list = append(list, fmt.Sprintf("%09d %s", i, item))
	}
	records := make([]*machine.Record, 2000)
	for k := range records {
		records[k] = &machine.Record{Seq: k + 1, From: "grow", To: "grow", Vars: map[string]any{"xs": list[: 500+k : 500+k]}}
		if k > 0 {
			records[k].Appended = map[string]int{"xs": 500 + k - 1}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		dir, err := temporal.NewDirStore(b.TempDir())
		require.NoError(b, err)
		data, err := temporal.EncodeSteps(records)
		require.NoError(b, err)
		_, err = temporal.NewCodec(dir, 0, 0).Store(data)
		require.NoError(b, err)
	}
}

// FuzzCodecRoundTrip: any JSON value comes back from the codec as it went
// in, with chunks small enough that short values make trees of several
// levels (leaves of 8 bytes, 2 references to a group), lists cut between
// items whatever their strings hold, strings cut at rune boundaries.
func FuzzCodecRoundTrip(f *testing.F) {
	for _, seed := range []string{
		`{"xs": ["a", "b,c", "d\"]", [1, 2, [3]], {"k": "}"}, "é😀漢", 4.5e10, null, true]}`,
		`"` + strings.Repeat("ab😀漢é", 20) + `"`,
		`[[], {}, "", 0, -1, 1e308, "\u0000\n\\"]`,
		`{"a": {"b": {"c": ["` + strings.Repeat("x", 100) + `"]}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var in any
		if dec.Decode(&in) != nil || dec.More() {
			return
		}
		s := newCountingStore()
		c := temporal.NewCodec(s, 16, 0)
		temporal.SetChunking(c, 24, 8, 2)
		dc := c.DataConverter()
		p, err := dc.ToPayload(in)
		if err != nil {
			return // a value the SDK's converter refuses (a number JSON allows and Go does not)
		}
		back := temporal.NewCodec(s, 16, 0)
		temporal.SetChunking(back, 24, 8, 2)
		ps, err := back.Decode([]*commonpb.Payload{p})
		require.NoError(t, err)
		want, err := dc.ToPayload(in)
		require.NoError(t, err)
		got := ps[0].GetData()
		if !bytes.Equal(want.GetData(), got) { // the same value, maybe written otherwise: compare values
			var a, b any
			da := json.NewDecoder(bytes.NewReader(data))
			da.UseNumber()
			require.NoError(t, da.Decode(&a))
			db := json.NewDecoder(bytes.NewReader(got))
			db.UseNumber()
			require.NoError(t, db.Decode(&b), "decoded: %s", got)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("the value changed through the codec:\nin:  %s\nout: %s", data, got)
			}
		}
	})
}

// TestSmallChunksMakeTrees: the fuzz target's chunk sizes make short
// values into trees of several levels (else it would test no tree).
func TestSmallChunksMakeTrees(t *testing.T) {
	s := newCountingStore()
	c := temporal.NewCodec(s, 16, 0)
	temporal.SetChunking(c, 24, 8, 2)
	in := map[string]any{"xs": []any{"a", "b,c", `d"]`, []any{1.0, 2.0}, map[string]any{"k": "}"}, "é😀漢", "more", "items", "here"}, "s": strings.Repeat("ab😀漢é", 20)}
	p, err := c.DataConverter().ToPayload(in)
	require.NoError(t, err)
	var all strings.Builder // the payload is stored whole too (over 16 bytes): look in the blobs
	for _, b := range s.m {
		all.Write(b)
	}
	assert.Contains(t, all.String(), `"list:sha256:`)
	assert.Contains(t, all.String(), `"text:sha256:`)
	assert.Greater(t, len(s.m), 20, "blobs: leaves and groups")
	var out map[string]any
	require.NoError(t, c.DataConverter().FromPayload(p, &out))
	assert.Equal(t, in, out)
}

// A value whose chunks would nest deeper than a reader reads (8 groups) is
// refused when stored, not stored unreadable: with leaves of 8 bytes and 2
// references a group (2^8 leaves), a 1 KB string goes, a 4 KB one does not.
// (FuzzCodecRoundTrip found the store writing what the reader refused.)
func TestChunksNestNoDeeperThanAReaderReads(t *testing.T) {
	for _, tc := range []struct {
		size int
		err  string
	}{
		{1 << 10, ""},
		{4 << 10, "its chunks would nest deeper than 8 groups"},
	} {
		c := temporal.NewCodec(newCountingStore(), 16, 0)
		temporal.SetChunking(c, 24, 8, 2)
		in := strings.Repeat("x", tc.size)
		p, err := c.DataConverter().ToPayload(in)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err)
			continue
		}
		require.NoError(t, err)
		var out string
		require.NoError(t, c.DataConverter().FromPayload(p, &out))
		assert.Equal(t, in, out)
	}
}

// A chunk the store refuses fails the payload with the store's error, said
// once (the leaves are stored several at a time).
func TestAChunkTheStoreRefusesFailsThePayload(t *testing.T) {
	s := newCountingStore()
	s.put = fmt.Errorf("cannot store blob: no space left on device")
	var list []any
	for i := range 5000 {
		list = append(list, fmt.Sprintf("item %d %s", i, strings.Repeat("x", 100)))
	}
	_, err := temporal.NewCodec(s, 0, 0).DataConverter().ToPayload(map[string]any{"xs": list})
	require.Error(t, err)
	assert.Equal(t, 1, strings.Count(err.Error(), "no space left on device"), err.Error())
}
