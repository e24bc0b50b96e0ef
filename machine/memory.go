package machine

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Memory is a run's named memory slots (e.g. the plan, L2 skill memory, the
// L3 chat history). Each slot holds one JSON value and/or an ordered list of
// JSON items. Every change is a MemOp, so the journal records it and a resume
// replays it. The interpreter owns it; actions change it through a MemoryTx.
type Memory struct {
	slots map[string]*slot
}

type slot struct {
	Value json.RawMessage   `json:"value,omitempty"`
	Items []json.RawMessage `json:"items,omitempty"`
}

// Memory operations.
const (
	OpPut    = "put"    // replace the slot's value
	OpAppend = "append" // append an item to the slot's list
	OpClear  = "clear"  // empty the slot's list
	OpDelete = "delete" // remove the slot (value and list)
)

// MemOp is one change to memory.
type MemOp struct {
	Op    string          `json:"op"`
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value,omitempty"`
}

// NewMemory returns an empty memory.
func NewMemory() *Memory { return &Memory{slots: map[string]*slot{}} }

// Apply replays ops in order.
func (m *Memory) Apply(ops []MemOp) error {
	for _, op := range ops {
		if err := m.apply(op); err != nil {
			return err
		}
	}
	return nil
}

func (m *Memory) apply(op MemOp) error {
	s := m.slots[op.Key]
	switch op.Op {
	case OpPut:
		if s == nil {
			s = &slot{}
			m.slots[op.Key] = s
		}
		s.Value = op.Value
	case OpAppend:
		if s == nil {
			s = &slot{}
			m.slots[op.Key] = s
		}
		s.Items = append(s.Items, op.Value)
	case OpClear:
		if s != nil {
			s.Items = nil
		}
	case OpDelete:
		delete(m.slots, op.Key)
	default:
		return fmt.Errorf("cannot apply memory operation %q to %q: unknown operation", op.Op, op.Key)
	}
	return nil
}

// Get decodes the slot's value into v and reports whether it was set.
func (m *Memory) Get(key string, v any) (bool, error) {
	s := m.slots[key]
	if s == nil || s.Value == nil {
		return false, nil
	}
	if err := json.Unmarshal(s.Value, v); err != nil {
		return true, fmt.Errorf("cannot decode memory %q: %w", key, err)
	}
	return true, nil
}

// Items returns the slot's list items (do not modify them).
func (m *Memory) Items(key string) []json.RawMessage {
	if s := m.slots[key]; s != nil {
		return s.Items
	}
	return nil
}

// Keys returns the slot names, sorted.
func (m *Memory) Keys() []string {
	out := make([]string, 0, len(m.slots))
	for k := range m.slots {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// MarshalJSON renders memory as {"key": {"value": ..., "items": [...]}}.
func (m *Memory) MarshalJSON() ([]byte, error) { return json.Marshal(m.slots) }

// UnmarshalJSON reads what MarshalJSON wrote.
func (m *Memory) UnmarshalJSON(b []byte) error {
	slots := map[string]*slot{}
	if err := json.Unmarshal(b, &slots); err != nil {
		return err
	}
	m.slots = slots
	return nil
}

// Clone returns a deep-enough copy (raw JSON is immutable by convention).
func (m *Memory) Clone() *Memory {
	out := NewMemory()
	for k, s := range m.slots {
		out.slots[k] = &slot{Value: s.Value, Items: append([]json.RawMessage(nil), s.Items...)}
	}
	return out
}

// MemoryTx is the memory as an action sees it: reads include the action's
// own staged changes; the changes are applied only if the action succeeds.
type MemoryTx interface {
	Get(key string, v any) (bool, error)
	Items(key string) []json.RawMessage
	Len(key string) int
	Put(key string, v any) error
	Append(key string, v any) error
	Clear(key string)
	Delete(key string)
}

// memTx stages changes over a base memory.
type memTx struct {
	base *Memory
	ops  []MemOp
	over map[string]*slot // copy-on-write view of the slots this tx changed
	gone map[string]bool
}

func newMemTx(base *Memory) *memTx { return &memTx{base: base} }

func (t *memTx) view(key string) *slot {
	if s, ok := t.over[key]; ok {
		return s
	}
	if t.gone[key] {
		return nil
	}
	return t.base.slots[key]
}

func (t *memTx) writable(key string) *slot {
	if t.over == nil {
		t.over = map[string]*slot{}
	}
	if s, ok := t.over[key]; ok {
		return s
	}
	s := &slot{}
	if b := t.view(key); b != nil {
		s.Value = b.Value
		s.Items = b.Items[:len(b.Items):len(b.Items)] // appends reallocate: the base stays untouched
	}
	t.over[key] = s
	delete(t.gone, key)
	return s
}

func (t *memTx) Get(key string, v any) (bool, error) {
	s := t.view(key)
	if s == nil || s.Value == nil {
		return false, nil
	}
	if err := json.Unmarshal(s.Value, v); err != nil {
		return true, fmt.Errorf("cannot decode memory %q: %w", key, err)
	}
	return true, nil
}

func (t *memTx) Items(key string) []json.RawMessage {
	if s := t.view(key); s != nil {
		return s.Items
	}
	return nil
}

func (t *memTx) Len(key string) int { return len(t.Items(key)) }

func (t *memTx) Put(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("cannot store memory %q: %w", key, err)
	}
	t.writable(key).Value = b
	t.ops = append(t.ops, MemOp{Op: OpPut, Key: key, Value: b})
	return nil
}

func (t *memTx) Append(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("cannot append to memory %q: %w", key, err)
	}
	s := t.writable(key)
	s.Items = append(s.Items, b)
	t.ops = append(t.ops, MemOp{Op: OpAppend, Key: key, Value: b})
	return nil
}

func (t *memTx) Clear(key string) {
	if t.view(key) == nil {
		return
	}
	t.writable(key).Items = nil
	t.ops = append(t.ops, MemOp{Op: OpClear, Key: key})
}

func (t *memTx) Delete(key string) {
	if t.view(key) == nil {
		return
	}
	delete(t.over, key)
	if t.gone == nil {
		t.gone = map[string]bool{}
	}
	t.gone[key] = true
	t.ops = append(t.ops, MemOp{Op: OpDelete, Key: key})
}
