package sudoku

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// corpusLines are the lines of --out and --rejects of a corpus job,
// written in input order a buffer at a time, and the rejects for the
// report: the first rejectsKept and their number, so that a corpus of bad
// lines makes a report of bounded size (--rejects gets every one).
type corpusLines struct {
	// outputs receives --out and --rejects as they are written; nil:
	// they are kept whole until the report puts them (Summary.Outputs).
	outputs     tasks.Outputs
	out, reject outFile
	rejects     []Reject // the first rejectsKept
	rejected    int      // all
}

// rejectsKept is the number of rejects a report lists.
const rejectsKept = 100

// rejectsShown is the number of them its text shows.
const rejectsShown = 20

// outFile is one output of a corpus job.
type outFile struct {
	name string
	want bool
	buf  []byte         // lines not yet written
	w    io.WriteCloser // made by the first write
}

// flushAt is how many bytes of lines are gathered before they are written.
const flushAt = 1 << 20

func newCorpusLines(p SolveParams, outputs tasks.Outputs) *corpusLines {
	return &corpusLines{outputs: outputs, out: outFile{name: "out", want: p.Out}, reject: outFile{name: "rejects", want: p.Rejects}}
}

// addReject adds a puzzle not uniquely solved.
func (l *corpusLines) addReject(file string, line int, outcome, reason string) {
	if l.rejected < rejectsKept {
		l.rejects = append(l.rejects, Reject{File: file, Line: line, Outcome: outcome, Reason: reason})
	}
	l.rejected++
	if l.reject.want {
		l.reject.buf = fmt.Appendf(l.reject.buf, "%s:%d: %s: %s\n", file, line, outcome, reason)
	}
}

// flush writes the lines gathered once there are flushAt bytes of them,
// or, with final, all of them.
func (l *corpusLines) flush(final bool) error {
	if l.outputs == nil {
		return nil
	}
	for _, f := range []*outFile{&l.out, &l.reject} {
		if !f.want || len(f.buf) < flushAt && !final {
			continue
		}
		if f.w == nil {
			w, err := l.outputs.Create(context.Background(), f.name)
			if err != nil {
				return fmt.Errorf("output %s: %w", f.name, err)
			}
			f.w = w
		}
		if _, err := f.w.Write(f.buf); err != nil {
			return fmt.Errorf("output %s: %w", f.name, err)
		}
		f.buf = f.buf[:0]
	}
	return nil
}

// finish writes what is left and completes the outputs.
func (l *corpusLines) finish(ctx context.Context, sum tasks.Summary) error {
	if l.outputs == nil {
		for _, f := range []*outFile{&l.out, &l.reject} {
			if f.want {
				if err := sum.PutOutput(ctx, f.name, f.buf); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := l.flush(true); err != nil {
		return err
	}
	for _, f := range []*outFile{&l.out, &l.reject} {
		if f.w != nil {
			if err := f.w.Close(); err != nil {
				return fmt.Errorf("output %s: %w", f.name, err)
			}
			f.w = nil
		}
	}
	return nil
}

// writeRejects writes the number of rejects of a report and the first of
// them; toFile says that --rejects has them all.
func writeRejects(b *strings.Builder, rejects []Reject, total int, toFile bool) {
	if total == 0 {
		return
	}
	fmt.Fprintf(b, "  rejects: %d\n", total)
	for _, rj := range rejects[:min(len(rejects), rejectsShown)] {
		fmt.Fprintf(b, "    %s:%d: %s: %s\n", rj.File, rj.Line, rj.Outcome, rj.Reason)
	}
	switch more := total - min(len(rejects), rejectsShown); {
	case more > 0 && toFile:
		fmt.Fprintf(b, "    ... and %d more in the file of --rejects\n", more)
	case more > 0:
		fmt.Fprintf(b, "    ... and %d more, not shown (--rejects FILE writes them all)\n", more)
	}
}
