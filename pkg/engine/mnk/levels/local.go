package levels

import (
	"context"
	"fmt"
	"sync"
)

// MapStore is a Store in memory, for tests and for Local.
type MapStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

// Get implements Store.
func (s *MapStore) Get(_ context.Context, name string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, ok := s.m[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoPiece, name)
	}
	return data, nil
}

// Put implements Store.
func (s *MapStore) Put(_ context.Context, name string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[name] = append([]byte(nil), data...)
	return nil
}

// Local counts the whole tree in this process, one task at a time, and
// returns the figures of each ply.
func (b *Board) Local(ctx context.Context, shards int, opt Options) ([]Stats, error) {
	store := &MapStore{}
	plies := make([]Stats, b.cells+1)
	for ply := range plies {
		for shard := range shards {
			if ply == 0 && shard != RootShard(shards) {
				continue
			}
			st, err := b.Run(ctx, store, Task{Ply: ply, Shard: shard, Shards: shards, Prefix: "local"}, opt)
			if err != nil {
				return nil, fmt.Errorf("ply %d shard %d: %w", ply, shard, err)
			}
			plies[ply].Add(st)
		}
	}
	return plies, nil
}

// Delete deletes a piece (tasks.Deleter).
func (s *MapStore) Delete(_ context.Context, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, name)
	return nil
}

// Len returns the number of pieces held.
func (s *MapStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
