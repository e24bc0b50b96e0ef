package temporal_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/temporal"
)

// stores returns each kind of blob store, empty: a directory, and an
// S3-compatible bucket (an in-process fake S3 server on loopback).
func stores(t *testing.T) map[string]temporal.BlobStore {
	t.Helper()
	dir, err := temporal.NewDirStore(t.TempDir())
	require.NoError(t, err)
	backend := s3mem.New()
	require.NoError(t, backend.CreateBucket("blobs"))
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	s3, err := temporal.NewS3Store(context.Background(), "s3://blobs/lppctl?insecure=1&endpoint="+strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	return map[string]temporal.BlobStore{"directory": dir, "s3": s3}
}

// Every store keeps a value under its hash, once, and says clearly when
// one is missing.
func TestBlobStoresKeepValuesByHash(t *testing.T) {
	ctx := context.Background()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			b := []byte(strings.Repeat("a value ", 1000))
			ref := temporal.BlobRef(b)
			require.NoError(t, s.Put(ctx, ref, b))
			require.NoError(t, s.Put(ctx, ref, b), "storing it again")
			got, err := s.Get(ctx, ref)
			require.NoError(t, err)
			assert.Equal(t, b, got)

			missing := temporal.BlobRef([]byte("never stored"))
			_, err = s.Get(ctx, missing)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "cannot find blob "+missing+" in "+s.Where()+": every worker and client of the task queue must share one blob store (--blobs)")

			_, err = s.Get(ctx, "../../etc/passwd")
			assert.EqualError(t, err, `"../../etc/passwd" is not a blob reference (sha256:HEX)`)
		})
	}
}

// The codec's payloads round-trip through every store.
func TestCodecRoundTripsThroughEveryStore(t *testing.T) {
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			dc := temporal.NewCodec(s, 0, 0).DataConverter()
			in := map[string]any{"big": strings.Repeat("x", 100_000), "list": []any{strings.Repeat("y", 5000), 1.5}}
			p, err := dc.ToPayload(in)
			require.NoError(t, err)
			assert.Less(t, len(p.GetData()), 1024)
			var out map[string]any
			require.NoError(t, dc.FromPayload(p, &out))
			assert.Equal(t, in, out)
		})
	}
}

// An s3:// address that is not one, or names a missing bucket, is refused.
func TestS3StoreRefusesBadAddresses(t *testing.T) {
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, tc := range []struct{ addr, want string }{
		{"s3:///nobucket", `cannot use blob store "s3:///nobucket": give s3://BUCKET[/PREFIX][?endpoint=HOST:PORT&insecure=1]`},
		{"s3://missing?insecure=1&endpoint=" + host, "cannot use blob store s3://missing?insecure=1&endpoint=" + host + ": bucket missing does not exist; make it first"},
	} {
		_, err := temporal.NewS3Store(context.Background(), tc.addr)
		assert.EqualError(t, err, tc.want)
	}
}
