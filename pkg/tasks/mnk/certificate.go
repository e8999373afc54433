package mnk

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// One task builds it as solve.NewCertificate or pns.NewCertificate
// build it from the root (a proof of the root, then the extraction), with
// a solver of the job's method on a table of the job's size of its own,
// beside the table the solve tasks share: which move a pns certificate
// takes depends on what the table holds, so a shared table would make the
// result depend on which tasks ran before it, where a table of its own
// makes it a function of the payload (cached like any task's, the same on
// every worker, and the same bytes as one process extracts). Pieces of the
// certificate from the tasks of the split would neither be those bytes
// nor save work: a task does not know at plan time which first move the
// first player's strategy takes, so every task would extract both sides'
// strategies.
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
	Moves      int `json:"moves"`
	Pairings   int `json:"pairings"`
	Matchings  int `json:"matchings"`
	Bytes      int `json:"bytes"`
	// Positions is how many positions the report's check (Verify) played.
	Positions int `json:"positions"`
	// Seconds is the time the task took to build it.
	Seconds float64 `json:"seconds"`
}

// CertificateSolver returns the proof-number solver with which a
// certificate task of method pns builds its certificate: on a table of
// ttBytes of its own, with set matching, so that lines end at matchings
// too where no pairing is found (the k = 4 draws' certificates are a fifth
// smaller; the k = 5 ones the same).
func CertificateSolver(g *mnk.Game, ttBytes int) *pns.Solver {
	s := pns.New(g, ttBytes)
	s.SetMatching(true)
	return s
}

// runCertificate builds the certificate of pos with a solver of t's
// method on a table of its own.
func runCertificate(ctx context.Context, g *mnk.Game, pos mnk.Position, t solveTask) (tasks.Output, error) {
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
	var r certificateResult
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("result of task %s: %w", certificateTask, err)
	}
	if r.Bytes < 0 || r.Bytes > maxCertificateText {
		return nil, fmt.Errorf("result of task %s: a text of %d bytes", certificateTask, r.Bytes)
	}
	text, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(r.Text)), int64(r.Bytes)+1))
	if err == nil && len(text) != r.Bytes {
		err = fmt.Errorf("%d bytes, not the %d it gives", len(text), r.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("result of task %s: the certificate's text: %w", certificateTask, err)
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

// certificate checks the certificate that the certificate task built,
// writes it as the job's output "certificate" and describes it in rep.
func (sp *solvePlan) certificate(ctx context.Context, sum tasks.Summary, rep *SolveReport) error {
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
