package temporal

// SetChunking sets c's chunk sizes: a list or string over min bytes of JSON
// in leaves of target bytes, group references to a blob.
func SetChunking(c *Codec, min, target, group int) { c.chunks = chunking{min, target, group} }
