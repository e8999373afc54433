package mnk

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	mnkcert "github.com/woprlabs/wopr/pkg/engine/mnk/cert"
	"github.com/woprlabs/wopr/pkg/engine/mnk/pns"
	"github.com/woprlabs/wopr/pkg/engine/mnk/solve"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// The certificate of an "mnk.solve" job (SolveParams.Certificate): the
// strategies that prove the value of the empty board, which analyze mnk
// verify checks with the rules alone.
//
// With alpha-beta, or where a pns job is one task at the root (boards of
// up to 56 cells), one task builds it as solve.NewCertificate or
// pns.NewCertificate build it from the root (a proof of the root, then the
// extraction), with a solver of the job's method on a table of the job's
// size of its own, beside the table the solve tasks share: which move a
// pns certificate takes depends on what the table holds, so a shared
// table would make the result depend on which tasks ran before it, where
// a table of its own makes it a function of the payload (cached like any
// task's, the same on every worker, and the same bytes as one process
// extracts). Where the pns job splits below the root (8x8), the
// certificate is built in parts, a task for the root and one for each
// first move, each on a table of its own for the same reason (see "A
// certificate in parts" below).
//
// The report checks the certificate (mnkcert.Certificate.Verify: the rules
// alone, a small share of the extraction's time), compares its value with
// the one the solve tasks found, and writes it as the job's output
// "certificate".

// certificateTask is the id of the task that builds the certificate.
const certificateTask = "certificate"

// DefaultCertificatePositions bounds the positions a certificate visits
// when analyze is not told otherwise: about 100 bytes of memory each (more
// with pairings), half a GB in all.
const DefaultCertificatePositions = 5_000_000

// MaxCertificatePositions bounds --certificate-positions: a certificate
// of more positions, at about 25 bytes a line, would be refused by
// maxCertificateText once made, after gigabytes of a worker's memory.
const MaxCertificatePositions = 40_000_000

// maxCertificateText bounds the text a result may inflate to, so that a
// damaged or hostile result cannot make the coordinator inflate without
// end: a certificate of DefaultCertificatePositions positions of about 25
// bytes a line is 125 MB.
const maxCertificateText = 1 << 30

// certificateResult is the result of the certificate task: the
// certificate's text (mnkcert.Certificate.WriteTo), deflated (it compresses
// about fivefold; base64 in JSON adds a third), its size, and the time it
// took. A result of any size reaches the coordinator: one too big for a
// message travels in parts.
type certificateResult struct {
	Bytes   int     `json:"bytes"`
	Text    []byte  `json:"text"`
	Seconds float64 `json:"seconds"`
}

// SolveCertificate describes the certificate of a solve job that asked
// for one, which the job writes as its output "certificate".
type SolveCertificate struct {
	Strategies int `json:"strategies"`
	// Parts counts the parts of strategies built in parts.
	Parts     int `json:"parts,omitempty"`
	Moves     int `json:"moves"`
	Pairings  int `json:"pairings"`
	Matchings int `json:"matchings"`
	Bytes     int `json:"bytes"`
	// Positions is how many positions the report's check (Verify) played.
	Positions int `json:"positions"`
	// Seconds is the time the task took to build it.
	Seconds float64 `json:"seconds"`
}

// CertificateSolver returns the proof-number solver with which a
// certificate task of method pns builds its certificate: on a table of
// ttBytes of its own, with set matching, so that lines end at matchings
// too where no pairing is found (the k = 4 draws' certificates are a fifth
// smaller; the k = 5 ones the same). Without relevance zones, unlike the
// solve tasks: a proof with zones leaves unproven the moves its zones
// answer, which the verifier's zones need not, and the extraction proves
// them again (8,7,5: 86,285 moves in 54.8 s with them, 51,250 in 47.7 s
// without, beside another job). The table is one that solvers may share
// (pns.NewTable), so that a part's can be saved while it searches
// (table.go).
func CertificateSolver(g *mnk.Game, ttBytes int) *pns.Solver {
	s := pns.NewTable(g, ttBytes).NewSolver()
	s.SetMatching(true)
	return s
}

// runCertificate builds the certificate of pos with a solver of t's
// method on a table of its own.
func runCertificate(ctx context.Context, g *mnk.Game, pos mnk.Position, t solveTask, dir string) (tasks.Output, error) {
	if t.CertificatePart {
		if t.Method != MethodPNS {
			return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.solve task: a part of a certificate with method %q", t.Method))
		}
		return runCertificatePart(ctx, g, pos, t, dir)
	}
	start := time.Now()
	var cert *mnkcert.Certificate
	var err error
	hint := "a strategy must answer every reply of the other side, and alpha-beta certificates grow fast past 4x5; --method pns gives smaller ones (docs/games.md)"
	if t.Method == MethodPNS {
		cert, err = pns.NewCertificate(ctx, CertificateSolver(g, t.TTMB<<20), pos, t.CertificatePositions, nil)
		hint = "a strategy must answer every reply of the other side until a pairing, a matching or the end of the game (docs/games.md)"
	} else {
		cert, err = solve.NewCertificate(ctx, solve.New(g, t.TTMB<<20), pos, t.CertificatePositions, nil)
	}
	if errors.Is(err, mnkcert.ErrTooBig) {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("%w (--certificate-positions): %s", err, hint))
	}
	if err != nil {
		return tasks.Output{}, err
	}
	var text bytes.Buffer
	if _, err := cert.WriteTo(&text); err != nil {
		return tasks.Output{}, err
	}
	data, err := certificateData(text.Bytes(), time.Since(start))
	if err != nil {
		return tasks.Output{}, err
	}
	return tasks.Output{Data: data}, nil
}

// certificateData is the certificate task's result: text, deflated, and
// the time it took to build.
func certificateData(text []byte, took time.Duration) ([]byte, error) {
	var deflated bytes.Buffer
	zw, err := flate.NewWriter(&deflated, flate.DefaultCompression)
	if err == nil {
		_, err = zw.Write(text)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(certificateResult{Bytes: len(text), Text: deflated.Bytes(), Seconds: took.Seconds()})
}

// verifiedCertificate is the certificate task's result, read and
// verified.
type verifiedCertificate struct {
	data      []byte // the task's result
	result    certificateResult
	text      []byte
	cert      *mnkcert.Certificate
	positions int
}

// Check implements tasks.Checks: the certificate task's result must be a
// certificate of the job's game from the empty board that its verifier
// (pkg/engine/mnk/cert, which shares nothing with the solvers) accepts; the
// report then uses it without verifying it again. The solve tasks' values
// cannot be checked without solving: a second worker checks them
// (tasks.Spec.Verify).
func (sp *solvePlan) Check(id string, data []byte) error {
	if cp, ok := sp.certPartOf(id); ok {
		_, err := sp.checkPart(context.Background(), cp, data)
		return err
	}
	if id != certificateTask {
		return nil
	}
	v, err := sp.verifyCertificate(context.Background(), data)
	if err != nil {
		return err
	}
	sp.verified = v
	return nil
}

// verifyCertificate reads and verifies the certificate task's result.
func (sp *solvePlan) verifyCertificate(ctx context.Context, data []byte) (*verifiedCertificate, error) {
	r, text, err := inflateCertificate(certificateTask, data)
	if err != nil {
		return nil, err
	}
	cert, err := mnkcert.Read(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("result of task %s: %w", certificateTask, err)
	}
	if cert.Game.Spec() != sp.g.Spec() || cert.Root != (mnk.Position{}) {
		return nil, fmt.Errorf("result of task %s: a certificate of %s from %s, not of %s from the empty board",
			certificateTask, cert.Game.Spec(), cert.Game.String(cert.Root), sp.g.Spec())
	}
	positions, err := cert.Verify(ctx)
	if err != nil {
		return nil, fmt.Errorf("certificate: %w", err)
	}
	return &verifiedCertificate{data: data, result: r, text: text, cert: cert, positions: positions}, nil
}

// inflateCertificate reads the result of certificate task id and
// inflates its text.
func inflateCertificate(id string, data []byte) (certificateResult, []byte, error) {
	var r certificateResult
	if err := json.Unmarshal(data, &r); err != nil {
		return r, nil, fmt.Errorf("result of task %s: %w", id, err)
	}
	if r.Bytes < 0 || r.Bytes > maxCertificateText {
		return r, nil, fmt.Errorf("result of task %s: a text of %d bytes", id, r.Bytes)
	}
	text, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(r.Text)), int64(r.Bytes)+1))
	if err == nil && len(text) != r.Bytes {
		err = fmt.Errorf("%d bytes, not the %d it gives", len(text), r.Bytes)
	}
	if err != nil {
		return r, nil, fmt.Errorf("result of task %s: the certificate's text: %w", id, err)
	}
	return r, text, nil
}

// certificate checks the certificate that the certificate task built,
// writes it as the job's output "certificate" and describes it in rep.
func (sp *solvePlan) certificate(ctx context.Context, sum tasks.Summary, rep *SolveReport) error {
	if len(sp.certParts) > 0 {
		cert, text, positions, seconds, err := sp.assembleCertificate(ctx, sum)
		if err != nil {
			return err
		}
		if rep.Value != "unknown" && rep.Value != valueWord(cert.Value) {
			return fmt.Errorf("certificate: the job found %s, the strategies prove %s: one of the two is wrong", rep.Value, valueWord(cert.Value))
		}
		if err := sum.PutOutput(ctx, "certificate", text); err != nil {
			return err
		}
		for _, cp := range sp.certParts {
			rep.addTaskTime(sum, cp.id, sp.checked[cp.id].result.Seconds)
		}
		rep.Certificate = &SolveCertificate{Strategies: len(cert.Strategies), Parts: cert.Parts(), Moves: cert.Size(), Pairings: cert.Pairings(), Matchings: cert.Matchings(),
			Bytes: len(text), Positions: positions, Seconds: seconds}
		return nil
	}
	data, ok := sp.Result(certificateTask)
	if !ok {
		reason := "no result"
		for _, f := range sum.Failures {
			if f.Task == certificateTask {
				reason = f.Reason
			}
		}
		return fmt.Errorf("no certificate: task %s failed: %s", certificateTask, reason)
	}
	v := sp.verified
	if v == nil || !bytes.Equal(v.data, data) {
		var err error
		if v, err = sp.verifyCertificate(ctx, data); err != nil {
			return err
		}
	}
	r, text, cert, positions := v.result, v.text, v.cert, v.positions
	if rep.Value != "unknown" && rep.Value != valueWord(cert.Value) {
		return fmt.Errorf("certificate: the job found %s, the strategies prove %s: one of the two is wrong", rep.Value, valueWord(cert.Value))
	}
	if err := sum.PutOutput(ctx, "certificate", text); err != nil {
		return err
	}
	rep.addTaskTime(sum, certificateTask, r.Seconds)
	rep.Certificate = &SolveCertificate{Strategies: len(cert.Strategies), Moves: cert.Size(), Pairings: cert.Pairings(), Matchings: cert.Matchings(),
		Bytes: len(text), Positions: positions, Seconds: r.Seconds}
	return nil
}

// A certificate in parts. Where the solve tasks split the board below the
// root (the pns method, split depth 1 or more: 8x8), the certificate is
// built in parts, one task for the root and one for each first move up to
// symmetry, so that the workers share it as they share the proof, and an
// interrupted job keeps the parts built (cached results), as it keeps
// the first moves proven. Each task proves, on a table of its own, that
// the side not to move at its position wins, or else that the side to
// move does not lose, and extracts that strategy (pns.NewStrategy); the
// report puts them together (assembleCertificate):
//
//   - X wins on a first move: X's strategy to win plays it at the root
//     and goes on as that move's part;
//   - else O wins at the root: the root task's strategy of O to win;
//   - else a draw: the root task's strategy of X not to lose, and O's not
//     to lose in parts, the part from each first move.
//
// Each part is checked when its result arrives (Check), and the whole
// certificate once more in the report, by the verifier alone
// (mnkcert.Certificate.Verify checks each part on its own, with zones of
// its own: the parts need not agree where their positions meet).

// certPart is a task of a certificate in parts: its id and position.
type certPart struct {
	id  string
	pos mnk.Position
}

// checkedPart is a part's result as Check verified it.
type checkedPart struct {
	data      []byte
	result    certificateResult
	st        *mnkcert.Strategy
	positions int
}

// planCertificateParts adds the tasks of a certificate in parts: the
// root's, then one for each first move, up to symmetry, that does not end
// the game.
func (sp *solvePlan) planCertificateParts(ttmb int) {
	g, p := sp.g, sp.params
	task := func(id string, pos mnk.Position) {
		payload, _ := json.Marshal(solveTask{Rows: g.Rows, Cols: g.Cols, K: g.K, X: pos.X, O: pos.O, TTMB: ttmb, Method: MethodPNS,
			CertificatePositions: p.CertificatePositions, CertificatePart: true})
		sp.all = append(sp.all, tasks.Task{ID: id, Payload: payload})
		sp.certParts = append(sp.certParts, certPart{id: id, pos: pos})
	}
	task(certificateTask, mnk.Position{})
	var first []mnk.Position
	for _, n := range sp.layers[1] {
		if n.res == mnk.Ongoing {
			first = append(first, n.pos)
		}
	}
	slices.SortFunc(first, func(a, b mnk.Position) int {
		if a.X != b.X {
			return cmpU(a.X, b.X)
		}
		return cmpU(a.O, b.O)
	})
	width := len(strconv.Itoa(max(len(first)-1, 0)))
	for i, pos := range first {
		task(fmt.Sprintf("c%0*d", width, i), pos)
	}
}

// partGoals returns the strategy a part task extracts at pos: that of
// the side not to move there to win if it does, else that of the side to
// move not to lose.
func partGoals(pos mnk.Position) (win, notLose mnkcert.Strategy) {
	mover := pos.XToMove()
	return mnkcert.Strategy{X: !mover, Win: true}, mnkcert.Strategy{X: mover}
}

// runCertificatePart builds the part of a certificate in parts from pos.
// With dir, its table is kept there across an interruption as a solve
// task's is (table.go), in a file of the part's own: a part resumed so
// may take other moves than one built at once, and is verified all the
// same.
func runCertificatePart(ctx context.Context, g *mnk.Game, pos mnk.Position, t solveTask, dir string) (tasks.Output, error) {
	start := time.Now()
	s := CertificateSolver(g, t.TTMB<<20)
	path := partTablePath(dir, g, t.TTMB, pos)
	loadTableFile(s.Table(), path)
	stop := savePartEvery(s.Table(), path)
	defer stop()
	out, err := buildPart(ctx, g, s, pos, t, start)
	stop()
	switch {
	case path == "":
	case err != nil && ctx.Err() != nil:
		saveTable(s.Table(), path)
	default:
		// Built (or failed for good): the part's result is what is kept,
		// and no later task reads its table.
		_ = os.Remove(path)
	}
	return out, err
}

// buildPart proves the goal of the part from pos with s and extracts its
// strategy.
func buildPart(ctx context.Context, g *mnk.Game, s *pns.Solver, pos mnk.Position, t solveTask, start time.Time) (tasks.Output, error) {
	win, notLose := partGoals(pos)
	st, ok, err := pns.NewStrategy(ctx, s, pos, win.X, true, t.CertificatePositions, nil)
	if err == nil && !ok {
		st, ok, err = pns.NewStrategy(ctx, s, pos, notLose.X, false, t.CertificatePositions, nil)
		if err == nil && !ok {
			err = fmt.Errorf("pns: %s neither wins nor keeps from losing at %s: the solver contradicts itself", notLose.Side(), g.String(pos))
		}
	}
	if errors.Is(err, mnkcert.ErrTooBig) {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("%w (--certificate-positions): a strategy must answer every reply of the other side until a pairing, a matching or the end of the game (docs/games.md)", err))
	}
	if err != nil {
		return tasks.Output{}, err
	}
	var text bytes.Buffer
	if _, err := mnkcert.WriteStrategy(&text, st); err != nil {
		return tasks.Output{}, err
	}
	data, err := certificateData(text.Bytes(), time.Since(start))
	if err != nil {
		return tasks.Output{}, err
	}
	return tasks.Output{Data: data}, nil
}

// certPartOf returns the part task id, if it is one.
func (sp *solvePlan) certPartOf(id string) (certPart, bool) {
	for _, cp := range sp.certParts {
		if cp.id == id {
			return cp, true
		}
	}
	return certPart{}, false
}

// checkPart reads and verifies the result of the part task cp: a
// strategy of the goal partGoals allows, which the verifier accepts from
// the part's position; it keeps it in sp.checked.
func (sp *solvePlan) checkPart(ctx context.Context, cp certPart, data []byte) (*checkedPart, error) {
	r, text, err := inflateCertificate(cp.id, data)
	if err != nil {
		return nil, err
	}
	st, err := mnkcert.ReadStrategy(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("result of task %s: %w", cp.id, err)
	}
	win, notLose := partGoals(cp.pos)
	if (st.X != win.X || !st.Win) && (st.X != notLose.X || st.Win) {
		return nil, fmt.Errorf("result of task %s: a strategy of %s to %s at %s, where a part is one of %s to win or of %s not to lose",
			cp.id, st.Side(), st.Goal(), sp.g.String(cp.pos), win.Side(), notLose.Side())
	}
	positions, _, err := mnkcert.CheckStrategy(ctx, sp.g, cp.pos, st, nil)
	if err != nil {
		return nil, fmt.Errorf("certificate: the part from %s (task %s): %w", sp.g.String(cp.pos), cp.id, err)
	}
	c := &checkedPart{data: data, result: r, st: st, positions: positions}
	if sp.checked == nil {
		sp.checked = map[string]*checkedPart{}
	}
	sp.checked[cp.id] = c
	return c, nil
}

// part returns the checked result of part task cp, checking it if Check
// has not.
func (sp *solvePlan) part(ctx context.Context, sum tasks.Summary, cp certPart) (*checkedPart, error) {
	data, ok := sp.Result(cp.id)
	if !ok {
		reason := "no result"
		for _, f := range sum.Failures {
			if f.Task == cp.id {
				reason = f.Reason
			}
		}
		return nil, fmt.Errorf("no certificate: task %s failed: %s", cp.id, reason)
	}
	if c := sp.checked[cp.id]; c != nil && bytes.Equal(c.data, data) {
		return c, nil
	}
	return sp.checkPart(ctx, cp, data)
}

// assembleCertificate puts the parts together (see above) and verifies
// the whole; it returns the certificate, its text, the positions Verify
// visited and the parts' time.
func (sp *solvePlan) assembleCertificate(ctx context.Context, sum tasks.Summary) (*mnkcert.Certificate, []byte, int, float64, error) {
	g := sp.g
	parts := make([]*checkedPart, len(sp.certParts))
	seconds := 0.0
	for i, cp := range sp.certParts {
		c, err := sp.part(ctx, sum, cp)
		if err != nil {
			return nil, nil, 0, 0, err
		}
		parts[i] = c
		seconds += c.result.Seconds
	}
	root := sp.certParts[0]
	var c *mnkcert.Certificate
	for i, cp := range sp.certParts[1:] {
		if st := parts[i+1].st; st.Win {
			c = mnkcert.New(g, root.pos, mnk.Win)
			c.Strategies[0].Moves = map[mnk.Position]int8{root.pos: int8(bits.TrailingZeros64(cp.pos.X &^ root.pos.X))}
			c.Strategies[0].Parts = map[mnk.Position]*mnkcert.Strategy{cp.pos: st}
			break
		}
	}
	if c == nil {
		for _, n := range sp.layers[1] {
			if n.res == mnk.XWin {
				c = mnkcert.New(g, root.pos, mnk.Win)
				c.Strategies[0].Moves = map[mnk.Position]int8{root.pos: int8(bits.TrailingZeros64(n.pos.X))}
				break
			}
		}
	}
	switch {
	case c != nil:
	case parts[0].st.Win:
		c = &mnkcert.Certificate{Game: g, Root: root.pos, Value: mnk.Loss, Strategies: []*mnkcert.Strategy{parts[0].st}}
	default:
		o := &mnkcert.Strategy{X: false, Moves: map[mnk.Position]int8{}, Parts: map[mnk.Position]*mnkcert.Strategy{}}
		for i, cp := range sp.certParts[1:] {
			o.Parts[cp.pos] = parts[i+1].st
		}
		c = &mnkcert.Certificate{Game: g, Root: root.pos, Value: mnk.Drawn, Strategies: []*mnkcert.Strategy{parts[0].st, o}, Zones: true}
	}
	positions, err := c.Verify(ctx)
	if err != nil {
		return nil, nil, 0, 0, fmt.Errorf("certificate: %w", err)
	}
	var text bytes.Buffer
	if _, err := c.WriteTo(&text); err != nil {
		return nil, nil, 0, 0, err
	}
	return c, text.Bytes(), positions, seconds, nil
}
