package broker

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// A replica of the jobs bucket that has not yet applied a job's creation
// answers the bucket's Get with "not found" (a direct get is answered by
// any replica): Jobs.Get asks the stream's leader before it says a job does
// not exist. The stale replica is played by a subscriber that answers the
// direct gets with 404, the server's own answering being turned off.
func TestGetJobAsksTheLeaderBeforeNotFound(t *testing.T) {
	b := runServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	j, err := b.Jobs().Submit(ctx, tasks.Spec{Kind: "x", Params: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.js.Stream(ctx, "KV_"+jobsBucket)
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.CachedInfo().Config
	cfg.AllowDirect = false
	if _, err := b.js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	var stale atomic.Int32
	sub, err := b.nc.Subscribe("$JS.API.DIRECT.GET.KV_"+jobsBucket+".>", func(m *nats.Msg) {
		stale.Add(1)
		_ = m.RespondMsg(&nats.Msg{Header: nats.Header{"Status": []string{"404"}, "Description": []string{"Message Not Found"}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()

	got, rev, err := b.Jobs().Get(ctx, j.ID)
	if err != nil || got.ID != j.ID || rev == 0 {
		t.Fatalf("Jobs.Get of a job a replica does not know yet: %v, revision %d, %v; want the job", got, rev, err)
	}
	if stale.Load() == 0 {
		t.Error("no direct get reached the stale replica: the test tests nothing")
	}
	if _, err := b.Jobs().Update(ctx, j.ID, func(r *job.Record) error { r.Done = 1; return nil }); err != nil {
		t.Errorf("Jobs.Update: %v", err)
	}
	if _, _, err := b.Jobs().Get(ctx, "20260101-000000-000000"); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("Jobs.Get of a job that does not exist: %v, want job.ErrNotFound", err)
	}
}

// ownerAndDenied starts a server with two users and connects them: the
// owner, who creates wopr's streams, and one who may not publish to the
// subjects deny.
func ownerAndDenied(t *testing.T, deny ...string) (owner, denied *Broker) {
	t.Helper()
	s := startServer(t, func(o *server.Options) {
		o.Users = []*server.User{
			{Username: "owner", Password: "o"},
			{Username: "denied", Password: "d", Permissions: &server.Permissions{
				Publish: &server.SubjectPermission{Deny: deny},
			}},
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	owner, err := Open(ctx, Endpoint{URL: s.ClientURL(), Auth: Auth{User: "owner", Password: "o"}}, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(owner.Close)
	denied, err = Attach(ctx, Endpoint{URL: s.ClientURL(), Auth: Auth{User: "denied", Password: "d"}}, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(denied.Close)
	return owner, denied
}

// A request the server's permissions deny is never answered: Jobs.Get, and
// any request, ends with the violation the server reports rather than
// sending the request again until its context ends (which, for a worker
// reading job records, is never).
func TestDeniedRequestEndsAtOnce(t *testing.T) {
	owner, reader := ownerAndDenied(t, "$JS.API.DIRECT.GET.>", "$JS.API.STREAM.MSG.GET.>")
	ctx := context.Background()
	j, err := owner.Jobs().Submit(ctx, tasks.Spec{Kind: "x", Params: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := reader.Jobs().Get(ctx, j.ID); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, nats.ErrPermissionViolation) || !strings.Contains(err.Error(), "DIRECT.GET") {
			t.Errorf("Jobs.Get denied: %v, want the permission violation naming the subject", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Jobs.Get denied by the server's permissions still trying after a minute")
	}
}

// Guard's context ends at the first violation the server reports, with it
// as the cause, however the denied request waits for its answer (a KV
// listing's consumer is asked for without the retries of request); one
// made after the violation is not ended by it.
func TestGuardEndsOnAViolation(t *testing.T) {
	owner, denied := ownerAndDenied(t, "$JS.API.CONSUMER.CREATE.>")
	if _, err := owner.Jobs().Submit(context.Background(), tasks.Spec{Kind: "x", Params: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	ctx, stop := denied.Guard(context.Background())
	defer stop()
	start := time.Now()
	_, err := denied.Jobs().List(ctx)
	if err == nil {
		t.Fatal("Jobs.List without the permission to make a consumer: no error")
	}
	cause := context.Cause(ctx)
	if !errors.Is(cause, ErrPermission) || !errors.Is(cause, nats.ErrPermissionViolation) || !strings.Contains(cause.Error(), "CONSUMER.CREATE") {
		t.Errorf("the guard's cause: %v, want the permission violation naming the subject", cause)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Jobs.List denied ended after %v, want at once", d)
	}
	later, stopLater := denied.Guard(context.Background())
	defer stopLater()
	if err := later.Err(); err != nil {
		t.Errorf("a guard made after the violation: %v, want it open", err)
	}
}

// A URL that lists several servers, comma-separated, connects to one of
// them, as nats.Connect reads it.
func TestURLOfSeveralServers(t *testing.T) {
	s := startServer(t, nil)
	b := openOn(t, s.ClientURL()+", "+s.ClientURL())
	if _, err := b.Jobs().Submit(context.Background(), tasks.Spec{Kind: "x", Params: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
}

// A watch that cannot start leaves Wait following the job by reading its
// record: here the server does not let the client create consumers on the
// jobs' bucket (as while a restarted node rejoins, when creating one timed
// out), and Wait still reports the job's progress and returns its final
// record.
func TestWaitWithoutWatch(t *testing.T) {
	owner, follower := ownerAndDenied(t, "$JS.API.CONSUMER.CREATE.KV_wopr_jobs", "$JS.API.CONSUMER.CREATE.KV_wopr_jobs.>")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Second)
	defer wcancel()
	if _, err := follower.Jobs().Watch(wctx, "x"); err == nil {
		t.Fatal("the follower may watch the jobs: the test tests nothing")
	}
	j, err := owner.Jobs().Submit(ctx, tasks.Spec{Kind: "x", Params: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	progress := make(chan *job.Record, 100)
	done := make(chan error, 1)
	var last *job.Record
	go func() {
		// As analyze report --wait: a context without a deadline, so
		// that creating the watch's consumer times out by itself.
		var err error
		last, err = follower.Jobs().Wait(context.Background(), j.ID, func(r *job.Record) { progress <- r })
		done <- err
	}()
	select {
	case <-progress: // the submitted record, read
	case err := <-done:
		t.Fatalf("Wait ended before the job did: %v", err)
	case <-ctx.Done():
		t.Fatal("no progress reported within a minute")
	}
	if _, err := owner.Jobs().Update(ctx, j.ID, func(r *job.Record) error { r.State = job.Done; return nil }); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil || last.State != job.Done {
			t.Fatalf("Wait: %+v, %v; want the job done", last, err)
		}
	case <-ctx.Done():
		t.Fatal("Wait did not return within a minute of the job done")
	}
}
