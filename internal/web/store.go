package web

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

// gameStore keeps games by id, at most max of them: a game nobody has used
// for idle is forgotten, and when the store is full a new game pushes out
// the one used least recently. Ids are 128 random bits, so one browser
// cannot guess another's games. Each game guards its own state: the store
// only hands it out.
type gameStore[T any] struct {
	max  int
	idle time.Duration
	now  func() time.Time

	mu    sync.Mutex
	games map[string]*stored[T]
	swept time.Time // when idle games were last forgotten
}

type stored[T any] struct {
	game T
	used time.Time
}

func newGameStore[T any](max int, idle time.Duration, now func() time.Time) *gameStore[T] {
	return &gameStore[T]{max: max, idle: idle, now: now, games: map[string]*stored[T]{}}
}

// add keeps g and returns its new id.
func (s *gameStore[T]) add(g T) string {
	var b [16]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.expireLocked(now)
	if len(s.games) >= s.max {
		var oldest string
		var at time.Time
		for id, e := range s.games {
			if oldest == "" || e.used.Before(at) {
				oldest, at = id, e.used
			}
		}
		delete(s.games, oldest)
	}
	s.games[id] = &stored[T]{game: g, used: now}
	return id
}

// get returns the game with id, marking it used; ok is false for an id
// never given or forgotten.
func (s *gameStore[T]) get(id string) (g T, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	e, ok := s.games[id]
	if !ok || now.Sub(e.used) > s.idle {
		delete(s.games, id)
		return g, false
	}
	e.used = now
	return e.game, true
}

// len is the number of games kept (idle ones included until the next add).
func (s *gameStore[T]) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.games)
}

// expireLocked forgets the games idle for longer than s.idle, looking at
// most once a minute.
func (s *gameStore[T]) expireLocked(now time.Time) {
	if now.Sub(s.swept) < time.Minute {
		return
	}
	s.swept = now
	for id, e := range s.games {
		if now.Sub(e.used) > s.idle {
			delete(s.games, id)
		}
	}
}
