package mnk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	mnkcert "github.com/woprlabs/wopr/pkg/engine/mnk/cert"
	"github.com/woprlabs/wopr/pkg/engine/mnk/pns"
	"github.com/woprlabs/wopr/pkg/engine/mnk/solve"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/taskstest"
)

// certificateJob runs a solve job that asks for a certificate and returns
// its report and its output "certificate".
func certificateJob(t *testing.T, p SolveParams, env tasks.Env, sum tasks.Summary) (*SolveReport, []byte) {
	t.Helper()
	plan, err := Solve{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	var out taskstest.Outputs
	sum.Outputs = &out
	rep := taskstest.RunPlan(t, Solve{}, plan, env, sum).(*SolveReport)
	cert, _ := out.Get("certificate")
	return rep, cert
}

// TestSolveCertificate: the certificate of a solve job is, byte for byte,
// the one its method's extraction writes from the root on a table of the
// job's size in one process (what analyze mnk solve --certificate wrote
// when it solved the game a second time itself), it verifies, and the
// report describes it; the solve tasks are those of the job without it.
func TestSolveCertificate(t *testing.T) {
	race.SkipSerial(t)
	for _, c := range []struct {
		m, n, k int
		method  string
		value   string
	}{
		{3, 3, 3, MethodAlphaBeta, "draw"}, {3, 3, 3, MethodPNS, "draw"},
		{4, 4, 3, MethodAlphaBeta, "win"}, {4, 4, 3, MethodPNS, "win"},
		{4, 4, 4, MethodAlphaBeta, "draw"}, {4, 4, 4, MethodPNS, "draw"},
		{3, 4, 3, MethodAuto, "win"}, {5, 5, 4, MethodPNS, "draw"},
	} {
		p := SolveParams{Rows: c.m, Cols: c.n, K: c.k, SplitDepth: -1, TTMB: 16, Method: c.method, Certificate: true, CertificatePositions: DefaultCertificatePositions}
		rep, got := certificateJob(t, p, tasks.Env{}, tasks.Summary{})
		name := fmt.Sprintf("%d,%d,%d %s", c.m, c.n, c.k, c.method)

		g := mnk.MustNew(c.m, c.n, c.k)
		var cert *mnkcert.Certificate
		var err error
		if p.Resolve() == MethodPNS {
			cert, err = pns.NewCertificate(context.Background(), CertificateSolver(g, p.TTMB<<20), mnk.Position{}, p.CertificatePositions, nil)
		} else {
			cert, err = solve.NewCertificate(context.Background(), solve.New(g, p.TTMB<<20), mnk.Position{}, p.CertificatePositions, nil)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var want bytes.Buffer
		cert.WriteTo(&want)
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: the job's certificate (%d bytes) differs from the extraction's in one process (%d bytes)", name, len(got), want.Len())
		}
		read, err := mnkcert.Read(bytes.NewReader(got))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		positions, err := read.Verify(context.Background())
		if err != nil || read.Value.String() != c.value || rep.Value != c.value {
			t.Errorf("%s: verify: %s, %v; report %s; want %s, proven", name, read.Value, err, rep.Value, c.value)
		}
		wantDesc := SolveCertificate{Strategies: len(cert.Strategies), Moves: cert.Size(), Pairings: cert.Pairings(), Matchings: cert.Matchings(), Bytes: want.Len(), Positions: positions}
		if d := rep.Certificate; d == nil || d.Seconds <= 0 {
			t.Errorf("%s: report's certificate %+v, want one that took some time", name, d)
		} else if wantDesc.Seconds = d.Seconds; *d != wantDesc {
			t.Errorf("%s: report's certificate %+v, want %+v", name, *d, wantDesc)
		}
		if !strings.Contains(rep.Text(), "verified") {
			t.Errorf("%s: the report's text does not tell of the certificate:\n%s", name, rep.Text())
		}

		// The same solve tasks, and a report of the same value, without
		// the certificate.
		p.Certificate, p.CertificatePositions = false, 0
		plain, err := Solve{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
		if err != nil {
			t.Fatal(err)
		}
		with, _ := Solve{}.Plan(context.Background(), mustJSON(SolveParams{Rows: c.m, Cols: c.n, K: c.k, SplitDepth: -1, TTMB: 16, Method: c.method,
			Certificate: true, CertificatePositions: DefaultCertificatePositions}), tasks.PlanEnv{})
		if a, b := plain.Tasks(), with.Tasks(); len(b) != len(a)+1 || b[0].ID != certificateTask || !sameTasks(a, b[1:]) {
			t.Errorf("%s: tasks with a certificate %d, without %d: want the same solve tasks and the certificate's first", name, len(b), len(a))
		}
	}
}

func sameTasks(a, b []tasks.Task) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || !bytes.Equal(a[i].Payload, b[i].Payload) {
			return false
		}
	}
	return true
}

// TestSolveCertificateRefused: a certificate that grows past its positions
// fails its task for good, saying so, and the report, which then has no
// certificate to write, fails with the reason; a certificate that does not
// verify, is of another game, or proves another value than the solve
// tasks found fails the report too.
func TestSolveCertificateRefused(t *testing.T) {
	ctx := context.Background()
	p := SolveParams{Rows: 4, Cols: 4, K: 4, SplitDepth: -1, TTMB: 16, Method: MethodAlphaBeta, Certificate: true, CertificatePositions: 1000}
	plan, err := Solve{}.Plan(ctx, mustJSON(p), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	r := Solve{}.NewRunner(tasks.Env{})
	_, err = r.Run(ctx, plan.Tasks()[0].Payload)
	if !errors.Is(err, tasks.ErrPermanent) || !strings.Contains(err.Error(), "certificate too big: more than 1000 positions (--certificate-positions)") {
		t.Fatalf("a certificate past its positions: %v, want a permanent failure naming --certificate-positions", err)
	}
	sp := plan.(*solvePlan)
	for _, st := range sp.tasks {
		out, err := r.Run(ctx, st.Payload)
		if err != nil {
			t.Fatal(err)
		}
		sp.Merge(st.ID, out.Data)
	}
	failed := tasks.Summary{Failures: []tasks.Failure{{Task: certificateTask, Reason: err.Error()}}}
	if _, err := plan.Report(ctx, failed); err == nil || !strings.Contains(err.Error(), "task certificate failed: certificate too big") {
		t.Errorf("report without its certificate: %v, want an error with the task's reason", err)
	}

	// 4,4,4 is a draw; the certificate task's result is replaced.
	text := func(rows, cols, k int) string {
		cert, err := pns.NewCertificate(ctx, CertificateSolver(mnk.MustNew(rows, cols, k), 16<<20), mnk.Position{}, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		cert.WriteTo(&b)
		return b.String()
	}
	draw := text(4, 4, 4)
	for _, c := range []struct{ name, text, want string }{
		{"a value its strategies do not prove", strings.Replace(draw, "value draw", "value win", 1), "needs a strategy of X to win"},
		{"another game's", text(4, 4, 3), "not of 4,4,4"},
		{"not a certificate", "wopr mnk certificate 9\n", "not a wopr mnk certificate"},
	} {
		data, err := certificateData([]byte(c.text), 0)
		if err != nil {
			t.Fatal(err)
		}
		sp.Results[certificateTask] = data
		if _, err := plan.Report(ctx, tasks.Summary{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: report %v, want an error containing %q", c.name, err, c.want)
		}
		// A worker's result is checked before it is merged (tasks.Checks).
		if err := sp.Check(certificateTask, data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: check %v, want an error containing %q", c.name, err, c.want)
		}
	}
	if data, _ := certificateData([]byte(draw), 0); sp.Check(certificateTask, data) != nil || sp.verified == nil {
		t.Errorf("the check refuses a right certificate, or keeps nothing of it")
	}
	if err := sp.Check(sp.tasks[0].ID, []byte("anything")); err != nil {
		t.Errorf("a solve task's result checked: %v (only the certificate can be)", err)
	}
	sp.Results[certificateTask] = []byte(`{"bytes": 5, "text": "AAAA"}`)
	if _, err := plan.Report(ctx, tasks.Summary{}); err == nil || !strings.Contains(err.Error(), "the certificate's text") {
		t.Errorf("a damaged text: report %v, want an error", err)
	}

	// A proof of the draw, but solve results that claim every reply of O
	// loses (so X wins): the two disagree.
	data, err := certificateData([]byte(draw), 0)
	if err != nil {
		t.Fatal(err)
	}
	sp.Results[certificateTask] = data
	for _, st := range sp.tasks {
		sp.Results[st.ID] = mustJSON(solveResult{Value: mnk.Loss})
	}
	if _, err := plan.Report(ctx, tasks.Summary{}); err == nil || !strings.Contains(err.Error(), "the job found win, the strategies prove draw") {
		t.Errorf("a certificate against the solve tasks: report %v, want an error saying both", err)
	}
}

// The certificate goes with a solve job's own parameters: positions with
// it only, at least one and at most MaxCertificatePositions, and
// alpha-beta's board limit said for it.
func TestSolveCertificateParams(t *testing.T) {
	for _, c := range []struct {
		p    SolveParams
		want string
	}{
		{SolveParams{Rows: 3, Cols: 3, K: 3, SplitDepth: -1, Certificate: true}, "--certificate-positions 0: want 1 to 40,000,000"},
		{SolveParams{Rows: 3, Cols: 3, K: 3, SplitDepth: -1, Certificate: true, CertificatePositions: 1 << 40},
			"--certificate-positions 1099511627776: want 1 to 40,000,000 (a certificate's text is at most 1 GB)"},
		{SolveParams{Rows: 3, Cols: 3, K: 3, SplitDepth: -1, CertificatePositions: 5}, "--certificate-positions 5: only with --certificate"},
		{SolveParams{Rows: 7, Cols: 7, K: 5, SplitDepth: -1, Method: MethodAlphaBeta, Certificate: true, CertificatePositions: 5},
			"--certificate with --method alphabeta takes boards of up to 36 cells, not 7x7"},
	} {
		if _, err := (Solve{}).Plan(context.Background(), mustJSON(c.p), tasks.PlanEnv{}); !errors.Is(err, tasks.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an invalid-parameters error containing %q", c.p, err, c.want)
		}
	}
}

// TestSolveCertificateBuiltInParts: a pns job split below the root builds
// its certificate in parts, a task for the root and one for each first
// move up to symmetry, beside the same solve tasks as without it; the
// parts put together verify and prove the value the solve tasks found,
// the same bytes every run; the progress line counts the parts built; a
// part that is not its position's, or not of the goal its position asks
// for, is refused when it arrives, naming its task.
func TestSolveCertificateBuiltInParts(t *testing.T) {
	race.SkipSerial(t)
	ctx := context.Background()
	for _, c := range []struct {
		m, n, k int
		value   string
		parts   int
	}{
		{3, 3, 3, "draw", 3}, {4, 4, 3, "win", 1}, {6, 5, 4, "win", 1}, {5, 5, 4, "draw", 6}, {7, 7, 5, "draw", 10},
	} {
		if testing.Short() && c.m*c.n > 25 {
			continue // -short: the three smallest
		}
		name := fmt.Sprintf("%d,%d,%d", c.m, c.n, c.k)
		p := SolveParams{Rows: c.m, Cols: c.n, K: c.k, SplitDepth: 1, TTMB: 16, Method: MethodPNS, Certificate: true, CertificatePositions: DefaultCertificatePositions}
		rep, got := certificateJob(t, p, tasks.Env{}, tasks.Summary{})
		read, err := mnkcert.Read(bytes.NewReader(got))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		positions, err := read.Verify(ctx)
		if err != nil || read.Value.String() != c.value || rep.Value != c.value || read.Parts() != c.parts {
			t.Errorf("%s: %s in %d parts, %v; report %s; want %s proven in %d parts", name, read.Value, read.Parts(), err, rep.Value, c.value, c.parts)
		}
		if d := rep.Certificate; d == nil || d.Parts != c.parts || d.Positions != positions || d.Bytes != len(got) || d.Moves != read.Size() {
			t.Errorf("%s: report's certificate %+v, want %d parts, %d positions, %d bytes", name, d, c.parts, positions, len(got))
		}
		if _, again := certificateJob(t, p, tasks.Env{}, tasks.Summary{}); !bytes.Equal(again, got) {
			t.Errorf("%s: a second run wrote another certificate", name)
		}

		plan, _ := Solve{}.Plan(ctx, mustJSON(p), tasks.PlanEnv{})
		sp := plan.(*solvePlan)
		p.Certificate, p.CertificatePositions = false, 0
		plain, _ := Solve{}.Plan(ctx, mustJSON(p), tasks.PlanEnv{})
		all := plan.Tasks()
		if n := len(all) - len(plain.Tasks()); n != len(sp.certParts) || all[0].ID != certificateTask || !sameTasks(plain.Tasks(), all[n:]) {
			t.Errorf("%s: %d tasks with a certificate in %d parts, %d without: want the parts' first, then the same tasks", name, len(all), len(sp.certParts), len(plain.Tasks()))
		}
		t.Logf("%s: %d parts, %d moves, %d pairings, %d bytes, %d positions verified", name, read.Parts(), read.Size(), read.Pairings(), len(got), positions)
	}

	// 5,5,4: the parts' results checked as they arrive.
	p := SolveParams{Rows: 5, Cols: 5, K: 4, SplitDepth: 1, TTMB: 16, Method: MethodPNS, Certificate: true, CertificatePositions: DefaultCertificatePositions}
	plan, _ := Solve{}.Plan(ctx, mustJSON(p), tasks.PlanEnv{})
	sp := plan.(*solvePlan)
	r := Solve{}.NewRunner(tasks.Env{})
	results := map[string][]byte{}
	for i, cp := range sp.certParts {
		if want := fmt.Sprintf("certificate: %d of %d parts built", i, len(sp.certParts)); !strings.HasSuffix(sp.Progress(), want) {
			t.Errorf("progress %q, want it to end %q", sp.Progress(), want)
		}
		out, err := r.Run(ctx, plan.Tasks()[i].Payload)
		if err != nil {
			t.Fatal(err)
		}
		if err := sp.Check(cp.id, out.Data); err != nil {
			t.Fatalf("part %s: %v", cp.id, err)
		}
		results[cp.id] = out.Data
		sp.Merge(cp.id, out.Data)
	}
	first, second := sp.certParts[1], sp.certParts[2]
	if err := sp.Check(first.id, results[second.id]); err == nil || !strings.Contains(err.Error(), "the part from") || !strings.Contains(err.Error(), "task "+first.id) {
		t.Errorf("another first move's part: %v, want an error naming the part's position and task", err)
	}
	if err := sp.Check(first.id, results[certificateTask]); err == nil || !strings.Contains(err.Error(), "a strategy of X to not-lose") {
		t.Errorf("a strategy of the root's goal for a first move: %v, want an error naming the goal", err)
	}
	if err := sp.Check(first.id, []byte(`{"bytes": 5, "text": "AAAA"}`)); err == nil || !strings.Contains(err.Error(), "result of task "+first.id) {
		t.Errorf("a damaged part: %v, want an error naming the task", err)
	}
}
