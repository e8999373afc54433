//go:build amd64 && !purego

package sudoku

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// An asmPath is an assembly path: its name in the tests, what it does and
// the extensions it uses.
type asmPath struct {
	path, name string
	need       isa
}

// asmPaths are the assembly paths.
var asmPaths = []asmPath{
	{"band", "propagation and givens (BMI1, BMI2)", bandAsmISA},
	{"bandNoPEXT", "propagation and givens without PEXT and PDEP (BMI1, BMI2)", bandAsmISA},
	{"columns", "column pass in the propagation, AVX-512F", colAVX512ISA},
	{"columnsAVX2", "column pass in the propagation, AVX2", colAVX2ISA},
	{"triads", "triad scan, " + triadAsmName, triadAsmISA},
	{"triadsAVX2", "triad scan, AVX2", triadAVX2ISA},
	{"solution", "solution and check (AVX-512 BW, VL)", solutionAsmISA},
	{"solutionAVX2", "solution and check, AVX2", solutionAVX2ISA},
}

// A pathSet is the state of the switches that choose the assembly: the
// use* variables.
type pathSet struct {
	band, bandNoPEXT, columns, columnsAVX2, triads, triadsAVX2, solution, solutionAVX2 bool
}

// production is what this processor takes, read before any test changes
// the switches.
var production = currentPaths()

// WOPR_SUDOKU_NOPEXT=1 has the tests and benchmarks of this run take the
// band assembly without PEXT, as processors with a slow one do
// (scripts/bench-vs-tdoku.sh SLOW_PEXT=1); production above stays this
// processor's choice.
func init() {
	if os.Getenv("WOPR_SUDOKU_NOPEXT") == "1" {
		useBandNoPEXT = true
	}
}

func currentPaths() pathSet {
	return pathSet{useBandAsm, useBandNoPEXT, useColAVX512, useColAVX2, useTriadAsm, useTriadAVX2, useSolutionAsm, useSolutionAVX2}
}

// use sets the switches to p.
func (p pathSet) use() {
	useBandAsm, useBandNoPEXT, useColAVX512, useColAVX2, useTriadAsm, useTriadAVX2, useSolutionAsm, useSolutionAVX2 = p.band, p.bandNoPEXT, p.columns, p.columnsAVX2, p.triads, p.triadsAVX2, p.solution, p.solutionAVX2
}

// runs reports whether path runs under p: an AVX2 kernel only where its
// AVX-512 sibling is off (triadScan, state.solution and Check ask for
// AVX-512 first), the column pass only inside the band assembly.
func (p pathSet) runs(path string) bool {
	switch path {
	case "band":
		return p.band && !p.bandNoPEXT
	case "bandNoPEXT":
		return p.band && p.bandNoPEXT
	case "columns":
		return p.band && p.columns
	case "columnsAVX2":
		return p.band && p.columnsAVX2 && !p.columns
	case "triads":
		return p.triads
	case "triadsAVX2":
		return p.triadsAVX2 && !p.triads
	case "solution":
		return p.solution
	case "solutionAVX2":
		return p.solutionAVX2 && !p.solution
	}
	panic("no assembly path " + path)
}

var (
	asmTestedMu sync.Mutex
	asmTested   = map[string]int{} // path: tests passed
)

// markAsmTested records, once t has passed, that it compared path with
// the Go; benchmarks compare nothing.
func markAsmTested(t testing.TB, path string) {
	tt, ok := t.(*testing.T)
	if !ok {
		return
	}
	tt.Cleanup(func() {
		if !tt.Failed() && !tt.Skipped() {
			asmTestedMu.Lock()
			asmTested[path]++
			asmTestedMu.Unlock()
		}
	})
}

// reportAsmPaths prints, after the package's tests, which assembly paths
// this processor runs, which of them production chooses, and which were
// tested; when the whole package ran (no -run), a chosen path that no
// test compared with the Go fails the run.
func reportAsmPaths(code int) int {
	var b strings.Builder
	pext := "no PEXT"
	if pextRatio > 0 {
		pext = fmt.Sprintf("PEXT measured at %.2f times an IMUL, slow: %v", pextRatio, slowPEXT())
	}
	fmt.Fprintf(&b, "sudoku assembly paths on this processor (%s; %s):\n", describeISA(hostISA), pext)
	var untested []string
	for _, p := range asmPaths {
		asmTestedMu.Lock()
		n := asmTested[p.path]
		asmTestedMu.Unlock()
		var state string
		switch m := hostISA.missing(p.need); {
		case m != "":
			state = "skipped: the processor lacks " + m
		case n > 0:
			state = "tested against the Go"
			if n > 1 {
				state = fmt.Sprintf("tested against the Go (%d tests)", n)
			}
		default:
			state = "not tested in this run"
		}
		use := "not chosen"
		if production.runs(p.path) {
			use = "chosen"
			if n == 0 {
				untested = append(untested, p.path)
			}
		}
		fmt.Fprintf(&b, "  %-12s %-62s %-10s %s\n", p.path, p.name, use, state)
	}
	// The whole suite ran when no -run pattern narrowed it and -list did
	// not stand in for running it.
	run, list := flag.Lookup("test.run"), flag.Lookup("test.list")
	whole := run != nil && run.Value.String() == "" && (list == nil || list.Value.String() == "")
	asmTestedMu.Lock()
	tested := len(asmTested)
	asmTestedMu.Unlock()
	if !whole && tested == 0 {
		return code // benchmarks alone, or tests of other things
	}
	fmt.Fprint(os.Stderr, b.String())
	if code == 0 && whole && len(untested) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: the paths that production takes here were not tested: %s\n", strings.Join(untested, ", "))
		return 1
	}
	return code
}

// A pathConfig is a named pathSet.
type pathConfig struct {
	name  string
	paths pathSet
}

// pathConfigs are the sets of paths TestPathsOnCorpora solves with: all
// Go, production's choice, and each assembly kernel the processor runs.
func pathConfigs() []pathConfig {
	cs := []pathConfig{{"Go", pathSet{}}, {"production", production}}
	if haveColAVX512 && haveTriadAsm && haveSolutionAsm {
		cs = append(cs, pathConfig{"band, columns, triads AVX-512, solution AVX-512", pathSet{band: true, columns: true, triads: true, solution: true}})
	}
	if haveColAVX2 && haveTriadAVX2 && haveSolutionAVX2 {
		cs = append(cs, pathConfig{"band, columns AVX2, triads AVX2, solution AVX2", pathSet{band: true, columnsAVX2: true, triadsAVX2: true, solutionAVX2: true}})
	}
	if haveColAVX2 && haveTriadAVX2 && haveSolutionAVX2 {
		cs = append(cs, pathConfig{"band without PEXT, columns AVX2, triads AVX2, solution AVX2",
			pathSet{band: true, bandNoPEXT: true, columnsAVX2: true, triadsAVX2: true, solutionAVX2: true}})
	}
	if haveBandAsm && haveTriadAVX2 && haveSolutionAVX2 {
		cs = append(cs, pathConfig{"band (the column loop), triads AVX2, solution AVX2", pathSet{band: true, triadsAVX2: true, solutionAVX2: true}})
	}
	if haveTriadAVX2 && haveSolutionAVX2 {
		cs = append(cs, pathConfig{"triads AVX2, solution AVX2 (a slow PEXT)", pathSet{triadsAVX2: true, solutionAVX2: true}})
	}
	return cs
}

// TestPathsOnCorpora solves the puzzles of all 12 corpora with every set
// of paths (pathConfigs) and compares each with the Go: the number of
// solutions, the solutions, the guesses and the nodes, puzzle by puzzle.
// The assembly computes what the Go does, so the search is the same.
func TestPathsOnCorpora(t *testing.T) {
	defer currentPaths().use()
	files := []struct {
		name  string
		n     int  // 0: all
		rated bool // lines "ID PUZZLE RATING"
	}{
		{"euler96.txt.gz", 0, false}, {"forum-hardest-1106.txt.gz", 0, false}, {"forum-hardest-1905-11plus.txt.gz", 10000, false},
		{"norvig-hardest.txt.gz", 0, false}, {"norvig-top95.txt.gz", 0, false}, {"plb-hard20.txt.gz", 0, false},
		{"plb-top50k.txt.gz", 0, false}, {"royle17-49151.txt.gz", 0, false}, {"royle17.txt.gz", 0, false},
		{"se-rated-dev.txt.gz", 0, true}, {"serg-benchmark.txt.gz", 0, false}, {"top1465.txt.gz", 0, false},
	}
	configs := pathConfigs()
	s := NewSolver()
	type result struct {
		n, guesses, nodes int
		sol               [2]Grid
	}
	puzzles := 0
	for _, f := range files {
		n := f.n
		if testing.Short() {
			n = 300
		}
		var gs []Grid
		if f.rated {
			gs = ratedCorpus(t, f.name, n)
		} else {
			gs = corpusHead(t, f.name, n)
		}
		for _, g := range gs {
			var want result
			for k, c := range configs {
				c.paths.use()
				var r result
				r.n, r.guesses = s.Solve(&g, 2)
				r.nodes = s.Nodes()
				for j := range min(r.n, 2) {
					r.sol[j] = s.Solution(j)
				}
				if k == 0 {
					want = r
					for j := range min(r.n, 2) {
						if err := Check(g, r.sol[j]); err != nil {
							t.Fatalf("%s: puzzle %s: solution %d: %v", f.name, g, j, err)
						}
					}
				} else if r != want {
					t.Fatalf("%s: puzzle %s: %s: %d solutions %v, %d guesses, %d nodes; Go: %d solutions %v, %d guesses, %d nodes",
						f.name, g, c.name, r.n, r.sol, r.guesses, r.nodes, want.n, want.sol, want.guesses, want.nodes)
				}
			}
		}
		puzzles += len(gs)
	}
	var names []string
	for _, c := range configs[1:] {
		names = append(names, c.name)
	}
	for _, p := range asmPaths {
		if slices.ContainsFunc(configs[1:], func(c pathConfig) bool { return c.paths.runs(p.path) }) {
			markAsmTested(t, p.path)
		}
	}
	t.Logf("%d puzzles of %d corpora solved alike by the Go and by: %s", puzzles, len(files), strings.Join(names, "; "))
}

// ratedCorpus returns the first n puzzles (0: all) of a corpus whose lines
// are "ID PUZZLE RATING", as se-rated-dev's are.
func ratedCorpus(t *testing.T, name string, n int) []Grid {
	t.Helper()
	var gs []Grid
	for i, line := range bytes.Split(bytes.TrimSpace(datasetText(t, name)), []byte("\n")) {
		fields := bytes.Fields(line)
		if len(fields) != 3 {
			t.Fatalf("%s:%d: %d fields, want ID, puzzle and rating", name, i+1, len(fields))
		}
		g, err := ParseLine(string(fields[1]))
		if err != nil {
			t.Fatalf("%s:%d: %v", name, i+1, err)
		}
		if gs = append(gs, g); len(gs) == n {
			break
		}
	}
	return gs
}
