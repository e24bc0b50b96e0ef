package temporal

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"strings"
	"sync"
	"unicode/utf8"
)

// Large lists, strings and maps are stored in chunks, so that a value that
// grows at every step costs the store what it grew by, not its whole size
// again (a list stored whole at each of N steps is ~N²/2 bytes): a list or
// string whose JSON is over chunkMin is cut into leaves of about
// chunkTarget bytes, from its start, so that appending leaves every leaf
// but the last as it was, and so stored once (a map is cut by its keys:
// putMap). The leaves' references are grouped chunkGroup to a blob, and
// those groups again, into a tree whose root is the value's reference:
//
//	{"$lppctl.blob": "list:sha256:H"}   H: ["sha256:L1", ..., "list:sha256:G", ...]
//	{"$lppctl.blob": "text:sha256:H"}   leaves hold JSON strings
//	{"$lppctl.blob": "map:sha256:H"}    leaves hold objects
//
// The value is the concatenation (a map: the union) of what the references
// of H stand for: a leaf ("sha256:...") holds a JSON array of items (a
// string, an object), a "list:"/"text:"/"map:" reference a group, read the
// same way. A codec that does not know chunks refuses such a reference (it
// is no "sha256:" one) rather than read it as a value; BuildID changes with
// the format (CodecFormat).
const (
	chunkMin    = 64 << 10
	chunkTarget = 32 << 10
	chunkGroup  = 128
	listPrefix  = "list:"
	textPrefix  = "text:"
	mapPrefix   = "map:"
	// maxChunkDepth bounds the tree a reference may stand for (128⁸ leaves):
	// a store whose groups refer in a circle is an error, not a hang.
	maxChunkDepth = 8
)

// chunking is a codec's chunk sizes (the constants above; smaller in tests,
// so that small values exercise the trees).
type chunking struct{ min, target, group int }

var defaultChunking = chunking{chunkMin, chunkTarget, chunkGroup}

// CodecFormat is the payload format of this codec: part of BuildID, so
// that a run's workflow stays with workers that read its payloads.
const CodecFormat = "chunks2"

// putList stores the list whose JSON is b (compact, as encodeAny writes
// it: its items' large values already by reference) in chunks cut between
// items, and returns the reference of its tree.
func (c *Codec) putList(b []byte, what string) (string, error) {
	return c.putContainer(b, listPrefix, what, func(_ []byte, size int) bool { return size >= c.chunks.target })
}

// putMap stores the map whose JSON is b (its keys sorted, as encodeAny
// writes them) in chunks cut between keys, and returns the reference of
// its tree. A map grows by keys anywhere in that order, so where it is cut
// depends on the keys, not on the sizes alone (content-defined chunks):
// after a key whose hash is 0 modulo 4 once a leaf holds half the target,
// or at twice the target. A key added or changed rewrites its leaf, and a
// neighbour at most, rather than every leaf after it.
func (c *Codec) putMap(b []byte, what string) (string, error) {
	return c.putContainer(b, mapPrefix, what, func(member []byte, size int) bool {
		if size >= 2*c.chunks.target {
			return true
		}
		if size < c.chunks.target/2 {
			return false
		}
		h := fnv.New32a()
		h.Write(memberKey(member))
		return h.Sum32()%4 == 0
	})
}

// memberKey is the key, as JSON, of an object's member "KEY":VALUE.
func memberKey(member []byte) []byte {
	for i := 1; i < len(member); i++ {
		switch member[i] {
		case '\\':
			i++
		case '"':
			return member[:i+1]
		}
	}
	return member
}

// putContainer stores the list or object b in leaves of its elements (an
// item, or a "key":value member), cut after an element where cut says so
// (given the element and the bytes of the leaf so far), and returns prefix
// and the reference of its tree.
func (c *Codec) putContainer(b []byte, prefix, what string, cut func(elem []byte, size int) bool) (string, error) {
	open, closing := b[0], b[len(b)-1]
	var leaves [][]byte
	start, elem := 1, 1 // the leaf's first byte, the element's
	flush := func(end int) {
		leaf := make([]byte, 0, end-start+2) // put keeps the bytes (its cache): a new leaf each time
		leaf = append(append(append(leaf, open), b[start:end]...), closing)
		leaves = append(leaves, leaf)
		start = end + 1
	}
	depth, inString, escaped := 0, false, false
	for i, ch := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case ch == '\\':
				escaped = true
			case ch == '"':
				inString = false
			}
		case ch == '"':
			inString = true
		case ch == '[' || ch == '{':
			depth++
		case ch == ']' || ch == '}':
			depth--
			if depth == 0 { // the container's end
				flush(i)
			}
		case ch == ',' && depth == 1:
			if cut(b[elem:i], i-start) {
				flush(i)
			}
			elem = i + 1
		}
	}
	refs, err := c.putAll(leaves)
	if err != nil {
		return "", err
	}
	return c.putTree(refs, prefix, what)
}

// putConcurrency bounds the blobs putAll stores at once: a large value's
// first store is hundreds of leaves, each a write (and a sync) in a
// directory or a request to an object store.
const putConcurrency = 8

// putAll stores blobs (leaves and groups: each far under the blob limit),
// those not known to be stored already several at a time, and returns
// their references in order.
func (c *Codec) putAll(blobs [][]byte) ([]string, error) {
	refs := make([]string, len(blobs))
	errs := make([]error, len(blobs))
	sem := make(chan struct{}, putConcurrency)
	var wg sync.WaitGroup
	for i, b := range blobs {
		refs[i] = BlobRef(b)
		if _, ok := c.stored.Load(refs[i]); ok {
			continue
		}
		if len(blobs) == 1 {
			errs[i] = c.putAs(refs[i], b)
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = c.putAs(refs[i], b)
		})
	}
	wg.Wait()
	for _, err := range errs { // the first: a full disk fails them all alike
		if err != nil {
			return nil, err
		}
	}
	return refs, nil
}

// putText stores s in chunks cut at rune boundaries and returns the
// reference of its tree.
func (c *Codec) putText(s, what string) (string, error) {
	var leaves [][]byte
	for len(s) > 0 {
		n := min(c.chunks.target, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		b, err := encodeAny(s[:n])
		if err != nil {
			return "", err
		}
		leaves = append(leaves, b)
		s = s[n:]
	}
	refs, err := c.putAll(leaves)
	if err != nil {
		return "", err
	}
	return c.putTree(refs, textPrefix, what)
}

// putTree groups refs chunkGroup to a blob, level by level from the start,
// and returns prefix and the reference of the root group.
func (c *Codec) putTree(refs []string, prefix, what string) (string, error) {
	for level := 1; ; level++ {
		if level > maxChunkDepth { // what a reader refuses (walkTree): never written
			return "", fmt.Errorf("cannot store %s: its chunks would nest deeper than %d groups", what, maxChunkDepth)
		}
		var up []string
		for i := 0; i < len(refs); i += c.chunks.group {
			b, err := json.Marshal(refs[i:min(i+c.chunks.group, len(refs))])
			if err != nil {
				return "", fmt.Errorf("cannot store %s: %w", what, err)
			}
			ref, err := c.put(b, what)
			if err != nil {
				return "", err
			}
			up = append(up, prefix+ref)
		}
		if len(up) == 1 {
			return up[0], nil
		}
		refs = up
	}
}

// chunked reports whether ref is the reference of a chunked list, string
// or map.
func chunked(ref string) bool {
	return strings.HasPrefix(ref, listPrefix) || strings.HasPrefix(ref, textPrefix) || strings.HasPrefix(ref, mapPrefix)
}

// expand returns the list or string that the tree ref stands for, its
// items' references not yet resolved.
func (c *Codec) expand(ref string) (any, error) {
	if strings.HasPrefix(ref, textPrefix) {
		var b strings.Builder
		err := c.walkTree(ref, textPrefix, 0, func(leaf string, v any) error {
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("cannot decode blob %s: a chunk of a string holds %T, not a string", leaf, v)
			}
			b.WriteString(s)
			return nil
		})
		return b.String(), err
	}
	if strings.HasPrefix(ref, mapPrefix) {
		out := map[string]any{}
		err := c.walkTree(ref, mapPrefix, 0, func(leaf string, v any) error {
			m, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("cannot decode blob %s: a chunk of a map holds %T, not a map", leaf, v)
			}
			maps.Copy(out, m)
			return nil
		})
		return out, err
	}
	var out []any
	err := c.walkTree(ref, listPrefix, 0, func(leaf string, v any) error {
		items, ok := v.([]any)
		if !ok {
			return fmt.Errorf("cannot decode blob %s: a chunk of a list holds %T, not a list", leaf, v)
		}
		out = append(out, items...)
		return nil
	})
	return out, err
}

// walkTree calls leaf, in order, with each leaf of the group ref.
func (c *Codec) walkTree(ref, prefix string, depth int, leaf func(string, any) error) error {
	if depth >= maxChunkDepth {
		return fmt.Errorf("cannot decode blob %s: its chunks nest deeper than %d groups", ref, maxChunkDepth)
	}
	group := strings.TrimPrefix(ref, prefix)
	b, err := c.get(group)
	if err != nil {
		return err
	}
	var refs []string
	if err := json.Unmarshal(b, &refs); err != nil {
		return fmt.Errorf("cannot decode blob %s: it is no group of chunks: %w", group, err)
	}
	for _, r := range refs {
		if strings.HasPrefix(r, prefix) {
			if err := c.walkTree(r, prefix, depth+1, leaf); err != nil {
				return err
			}
			continue
		}
		lb, err := c.get(r)
		if err != nil {
			return err
		}
		v, err := decodeAny(lb)
		if err != nil {
			return fmt.Errorf("cannot decode blob %s: %w", r, err)
		}
		if err := leaf(r, v); err != nil {
			return err
		}
	}
	return nil
}
