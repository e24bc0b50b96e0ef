package ui

import (
	"slices"
	"sync"
)

// recent keeps the readers of the files of the runs whose pages were shown
// last (at most keep), most recent first, so that the next page of one
// reads only what its files gained since: a run's prompts.jsonl index, its
// journal's tail.
type recent[T any] struct {
	mu   sync.Mutex
	keep int
	list []T
	path []string
}

// get returns path's reader (a new one from open when none is kept), kept
// for the next page.
func (c *recent[T]) get(path string, open func() T) T {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.Index(c.path, path)
	var x T
	if i >= 0 {
		x = c.list[i]
		c.list, c.path = slices.Delete(c.list, i, i+1), slices.Delete(c.path, i, i+1)
	} else {
		x = open()
	}
	c.list, c.path = slices.Insert(c.list, 0, x), slices.Insert(c.path, 0, path)
	if len(c.list) > c.keep {
		clear(c.list[c.keep:]) // let them go
		c.list, c.path = c.list[:c.keep], c.path[:c.keep]
	}
	return x
}

// put keeps x as path's reader, first, in place of the one kept.
func (c *recent[T]) put(path string, x T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i := slices.Index(c.path, path); i >= 0 {
		c.list, c.path = slices.Delete(c.list, i, i+1), slices.Delete(c.path, i, i+1)
	}
	c.list, c.path = slices.Insert(c.list, 0, x), slices.Insert(c.path, 0, path)
	if len(c.list) > c.keep {
		clear(c.list[c.keep:]) // let them go
		c.list, c.path = c.list[:c.keep], c.path[:c.keep]
	}
}
