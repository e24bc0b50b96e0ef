package temporal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Store is a BlobStore in an S3-compatible bucket: PREFIX/sha256/HASH.
// Its objects are written once and never changed.
type S3Store struct {
	c              *minio.Client
	bucket, prefix string
	where          string
}

// NewS3Store returns the store that an s3:// address names:
//
//	s3://BUCKET[/PREFIX][?endpoint=HOST:PORT&insecure=1&region=R]
//
// The endpoint defaults to the AWS one; credentials come from the
// environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or
// MINIO_ACCESS_KEY and MINIO_SECRET_KEY).
func NewS3Store(ctx context.Context, addr string) (*S3Store, error) {
	u, err := url.Parse(addr)
	if err != nil || u.Scheme != "s3" || u.Host == "" {
		return nil, fmt.Errorf("cannot use blob store %q: give s3://BUCKET[/PREFIX][?endpoint=HOST:PORT&insecure=1]", addr)
	}
	q := u.Query()
	endpoint := q.Get("endpoint")
	if endpoint == "" {
		endpoint = "s3.amazonaws.com"
	}
	c, err := minio.New(endpoint, &minio.Options{
		Creds:  credentials.NewChainCredentials([]credentials.Provider{&credentials.EnvAWS{}, &credentials.EnvMinio{}}),
		Secure: q.Get("insecure") != "1",
		Region: q.Get("region"),
	})
	if err != nil {
		return nil, fmt.Errorf("cannot use blob store %s: %w", addr, err)
	}
	s := &S3Store{c: c, bucket: u.Host, prefix: strings.Trim(u.Path, "/"), where: addr}
	ok, err := c.BucketExists(ctx, s.bucket)
	if err != nil {
		return nil, fmt.Errorf("cannot reach blob store %s: %w", addr, err)
	}
	if !ok {
		return nil, fmt.Errorf("cannot use blob store %s: bucket %s does not exist; make it first", addr, s.bucket)
	}
	return s, nil
}

func (s *S3Store) Where() string { return s.where }

func (s *S3Store) key(ref string) (string, error) {
	if !validRef(ref) {
		return "", fmt.Errorf("%q is not a blob reference (sha256:HEX)", ref)
	}
	k := "sha256/" + strings.TrimPrefix(ref, "sha256:")
	if s.prefix != "" {
		k = s.prefix + "/" + k
	}
	return k, nil
}

func (s *S3Store) Put(ctx context.Context, ref string, b []byte) error {
	k, err := s.key(ref)
	if err != nil {
		return err
	}
	if _, err := s.c.StatObject(ctx, s.bucket, k, minio.StatObjectOptions{}); err == nil {
		return nil // stored already: same key, same bytes
	}
	if _, err := s.c.PutObject(ctx, s.bucket, k, bytes.NewReader(b), int64(len(b)), minio.PutObjectOptions{ContentType: "application/octet-stream"}); err != nil {
		return fmt.Errorf("cannot store blob %s in %s: %w", ref, s.where, err)
	}
	return nil
}

func (s *S3Store) Get(ctx context.Context, ref string) ([]byte, error) {
	k, err := s.key(ref)
	if err != nil {
		return nil, err
	}
	obj, err := s.c.GetObject(ctx, s.bucket, k, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("cannot read blob %s in %s: %w", ref, s.where, err)
	}
	defer obj.Close()
	b, err := io.ReadAll(obj)
	if err != nil {
		var er minio.ErrorResponse
		if errors.As(err, &er) && er.Code == "NoSuchKey" {
			return nil, &MissingBlobError{Ref: ref, Store: s.where}
		}
		return nil, fmt.Errorf("cannot read blob %s in %s: %w", ref, s.where, err)
	}
	if BlobRef(b) != ref {
		return nil, fmt.Errorf("blob %s in %s is damaged: its content does not match its hash", ref, s.where)
	}
	return b, nil
}
