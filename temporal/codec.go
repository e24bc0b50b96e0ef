package temporal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"
)

// Payload claim-check (docs/scale.md): every payload the SDK sends (the
// workflow's input, activities' inputs and results, queries, updates, the
// result) goes through a Codec. A small payload is sent as it is. In a
// larger JSON payload every value (string, list or object) whose JSON is
// larger than the inline size is stored once in the BlobStore and replaced
// by {"$lppctl.blob": REF}, from the leaves up (a large list or string in
// chunks: codec_chunks.go); what is still too large is stored whole and
// sent as a reference.
const (
	// DefaultInline is the largest value sent by value (bytes of JSON).
	DefaultInline = 2 << 10
	// DefaultBlobLimit is the largest value a run may hold (bytes of JSON).
	DefaultBlobLimit = 64 << 20
	refKey           = "$lppctl.blob"
	metaRefs         = "lppctl-refs"        // "1": the JSON data holds references
	encBlob          = "binary/lppctl-blob" // the data is the reference of a stored payload
	metaEncoding     = "encoding"
)

// Codec is the PayloadCodec of the claim-check.
type Codec struct {
	store  BlobStore
	inline int
	limit  int
	cache  *blobCache
	stored sync.Map // refs this process stored or read: known present
	chunks chunking
}

// NewCodec returns the codec of store: values over inline bytes go by
// reference, a value over limit bytes is refused (0: the defaults).
func NewCodec(store BlobStore, inline, limit int) *Codec {
	if inline <= 0 {
		inline = DefaultInline
	}
	if limit <= 0 {
		limit = DefaultBlobLimit
	}
	return &Codec{store: store, inline: inline, limit: limit, cache: newBlobCache(256 << 20), chunks: defaultChunking}
}

// Limit is the largest value the codec stores.
func (c *Codec) Limit() int { return c.limit }

// DataConverter is the SDK's default converter with this codec.
func (c *Codec) DataConverter() converter.DataConverter {
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), c)
}

// LimitError is a value over the blob limit.
type LimitError struct {
	What  string // where the value is, e.g. "context variable big"
	Size  int
	Limit int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s is %s, over the blob limit of %s: keep large data in files, or raise the limit (lppctl worker --blob-limit)", e.What, Size(e.Size), Size(e.Limit))
}

// Size prints a byte count as 12.3 MB.
func Size(n int) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KB"
	}
	return strconv.Itoa(n) + " B"
}

// Store stores a JSON value, its large values by reference, and returns
// its reference (what refJSON(ref) stands for in a payload).
func (c *Codec) Store(b []byte) (string, error) {
	v, err := decodeAny(b)
	if err != nil {
		return "", fmt.Errorf("cannot store a value: %w", err)
	}
	if v, err = c.claim(v, "$"); err != nil {
		return "", err
	}
	data, err := encodeAny(v)
	if err != nil {
		return "", err
	}
	return c.put(data, "a value")
}

// refJSON is the JSON that stands for the value stored under ref.
func refJSON(ref string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{refKey: ref})
	return b
}

// Encode replaces large values by references.
func (c *Codec) Encode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		q, err := c.encode(p)
		if err != nil {
			return nil, err
		}
		out[i] = q
	}
	return out, nil
}

func (c *Codec) encode(p *commonpb.Payload) (*commonpb.Payload, error) {
	if len(p.GetData()) <= c.inline {
		if bytes.Contains(p.GetData(), []byte(refKey)) { // references made by the workflow
			md := make(map[string][]byte, len(p.GetMetadata())+1)
			for k, b := range p.GetMetadata() {
				md[k] = b
			}
			md[metaRefs] = []byte("1")
			return &commonpb.Payload{Metadata: md, Data: p.GetData()}, nil
		}
		return p, nil
	}
	if string(p.GetMetadata()[metaEncoding]) == converter.MetadataEncodingJSON {
		v, err := decodeAny(p.GetData())
		if err == nil {
			v, err = c.claim(v, "$")
			if err != nil {
				return nil, err
			}
			data, err := encodeAny(v)
			if err != nil {
				return nil, err
			}
			md := make(map[string][]byte, len(p.GetMetadata())+1)
			for k, b := range p.GetMetadata() {
				md[k] = b
			}
			md[metaRefs] = []byte("1")
			p = &commonpb.Payload{Metadata: md, Data: data}
			if len(data) <= c.inline {
				return p, nil
			}
		}
	}
	b, err := proto.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("cannot store a payload: %w", err)
	}
	ref, err := c.put(b, "a payload")
	if err != nil {
		return nil, err
	}
	return &commonpb.Payload{Metadata: map[string][]byte{metaEncoding: []byte(encBlob)}, Data: []byte(ref)}, nil
}

// claim replaces v's large values by references, from the leaves up.
func (c *Codec) claim(v any, path string) (any, error) {
	switch x := v.(type) {
	case string:
		if len(x)+2 <= c.inline {
			return x, nil
		}
	case []any:
		for i := range x {
			e, err := c.claim(x[i], path+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			x[i] = e
		}
	case map[string]any:
		for k, e := range x {
			e, err := c.claim(e, path+"."+k)
			if err != nil {
				return nil, err
			}
			x[k] = e
		}
	default:
		return v, nil
	}
	b, err := encodeAny(v)
	if err != nil {
		return nil, err
	}
	if len(b) <= c.inline {
		return v, nil
	}
	what := "the value at " + path
	if len(b) > c.limit {
		return nil, &LimitError{What: what, Size: len(b), Limit: c.limit}
	}
	var ref string
	switch x := v.(type) {
	case []any:
		if len(b) > c.chunks.min && len(x) > 1 {
			ref, err = c.putList(b, what)
			break
		}
		ref, err = c.put(b, what)
	case string:
		if len(b) > c.chunks.min {
			ref, err = c.putText(x, what)
			break
		}
		ref, err = c.put(b, what)
	case map[string]any:
		if len(b) > c.chunks.min && len(x) > 1 {
			ref, err = c.putMap(b, what)
			break
		}
		ref, err = c.put(b, what)
	default:
		ref, err = c.put(b, what)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{refKey: ref}, nil
}

func (c *Codec) put(b []byte, what string) (string, error) {
	if len(b) > c.limit {
		return "", &LimitError{What: what, Size: len(b), Limit: c.limit}
	}
	ref := BlobRef(b)
	return ref, c.putAs(ref, b)
}

// putAs stores b under ref (its BlobRef) unless this process knows it is
// stored already.
func (c *Codec) putAs(ref string, b []byte) error {
	if _, ok := c.stored.Load(ref); ok {
		return nil
	}
	if err := c.store.Put(context.Background(), ref, b); err != nil {
		return err
	}
	c.stored.Store(ref, true)
	c.cache.add(ref, b)
	return nil
}

func (c *Codec) get(ref string) ([]byte, error) {
	if b, ok := c.cache.get(ref); ok {
		return b, nil
	}
	b, err := c.store.Get(context.Background(), ref)
	if err != nil {
		return nil, err
	}
	c.stored.Store(ref, true)
	c.cache.add(ref, b)
	return b, nil
}

// Decode puts the referred values back.
func (c *Codec) Decode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		q, err := c.decode(p)
		if err != nil {
			return nil, err
		}
		out[i] = q
	}
	return out, nil
}

func (c *Codec) decode(p *commonpb.Payload) (*commonpb.Payload, error) {
	md := p.GetMetadata()
	if string(md[metaEncoding]) == encBlob {
		b, err := c.get(string(p.GetData()))
		if err != nil {
			return nil, err
		}
		var q commonpb.Payload
		if err := proto.Unmarshal(b, &q); err != nil {
			return nil, fmt.Errorf("cannot decode blob %s: %w", p.GetData(), err)
		}
		p, md = &q, q.GetMetadata()
	}
	if string(md[metaRefs]) != "1" {
		return p, nil
	}
	v, err := decodeAny(p.GetData())
	if err != nil {
		return nil, fmt.Errorf("cannot decode a payload with references: %w", err)
	}
	if v, err = c.resolve(v); err != nil {
		return nil, err
	}
	data, err := encodeAny(v)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(md))
	for k, b := range md {
		if k != metaRefs {
			out[k] = b
		}
	}
	return &commonpb.Payload{Metadata: out, Data: data}, nil
}

// resolve replaces references by their values.
func (c *Codec) resolve(v any) (any, error) {
	switch x := v.(type) {
	case []any:
		for i := range x {
			e, err := c.resolve(x[i])
			if err != nil {
				return nil, err
			}
			x[i] = e
		}
	case map[string]any:
		if ref, ok := x[refKey].(string); ok && len(x) == 1 {
			if chunked(ref) {
				e, err := c.expand(ref)
				if err != nil {
					return nil, err
				}
				return c.resolve(e)
			}
			b, err := c.get(ref)
			if err != nil {
				return nil, err
			}
			e, err := decodeAny(b)
			if err != nil {
				return nil, fmt.Errorf("cannot decode blob %s: %w", ref, err)
			}
			return c.resolve(e)
		}
		for k, e := range x {
			e, err := c.resolve(e)
			if err != nil {
				return nil, err
			}
			x[k] = e
		}
	}
	return v, nil
}

func decodeAny(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func encodeAny(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("cannot encode a payload: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
