package broker

import (
	"context"
	"testing"
	"time"
)

// A request that is never answered (sent to a stream leader that has just
// died) costs retry one short attempt, not the caller's whole deadline:
// the next attempt goes to the leader elected meanwhile.
func TestRetryOutlivesLostRequest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	calls := 0
	c := &conn{fail: &failure{done: make(chan struct{})}}
	err := c.retry(ctx, func(ctx context.Context) error {
		calls++
		if calls == 1 {
			<-ctx.Done() // no answer
			return ctx.Err()
		}
		return nil
	})
	if err != nil || calls != 2 {
		t.Errorf("retry: %v after %d calls; want success at the second call within the caller's %v", err, calls, 5*time.Second)
	}
}
