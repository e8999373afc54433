package count

import (
	"fmt"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/ref"
)

// knownAnswers are the statistics of whole games from the empty board. The
// 3,3,3 figures are the published ones; the others were established by the
// engine and the forward reference (TestForwardReference) agreeing.
var knownAnswers = []struct {
	rows, cols, k               int
	nodes, xWins, oWins, draws  uint64
	wins                        []uint64 // games won at ply L, by L
	canonicalGames              uint64
	value                       mnk.Value
	positions, canonical        uint64
	terminal, canonicalTerminal [4]uint64 // by Result
	byPly                       []uint64
	deep                        bool // skipped under -short
}{
	{
		rows: 3, cols: 3, k: 3,
		nodes: 549946, xWins: 131184, oWins: 77904, draws: 46080,
		wins:           []uint64{0, 0, 0, 0, 0, 1440, 5328, 47952, 72576, 81792},
		canonicalGames: 26830, value: mnk.Drawn,
		positions: 5478, canonical: 765,
		terminal: [4]uint64{0, 626, 316, 16}, canonicalTerminal: [4]uint64{0, 91, 44, 3},
		byPly: []uint64{1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78},
	},
	{
		rows: 4, cols: 4, k: 4,
		deep:  true,
		nodes: 36277691063105, xWins: 3225291101568, oWins: 3106180802304, draws: 8707262054400,
		wins:           []uint64{0, 0, 0, 0, 0, 0, 0, 316800, 2836224, 90759168, 621895680, 9328435200, 44126208000, 343255449600, 908999884800, 2872616140800, 2152429977600},
		canonicalGames: 1810265101760, value: mnk.Drawn,
		positions: 9722011, canonical: 1217977,
		terminal: [4]uint64{0, 401096, 252940, 5356}, canonicalTerminal: [4]uint64{0, 50280, 31795, 688},
		byPly: []uint64{1, 16, 240, 1680, 10920, 43680, 160160, 400400, 895950, 1433520, 1962576, 1962576, 1543080, 881760, 333792, 83440, 8220},
	},
	{
		rows: 4, cols: 4, k: 3,
		deep:  true,
		nodes: 2031207626081, xWins: 711350838432, oWins: 540402605136, draws: 29262643200,
		wins:           []uint64{0, 0, 0, 0, 0, 22464, 236880, 6803424, 53680896, 720255744, 3828533760, 26837568000, 82833062400, 278986291200, 376466227200, 404799897600, 77220864000},
		canonicalGames: 154076056313, value: mnk.Win,
		positions: 6036001, canonical: 756387,
		terminal: [4]uint64{0, 1522416, 1050026, 18}, canonicalTerminal: [4]uint64{0, 190623, 131555, 4},
		byPly: []uint64{1, 16, 240, 1680, 10920, 43680, 153296, 383240, 751410, 1202256, 1265880, 1225156, 624504, 304880, 59112, 9428, 302},
	},
	{
		rows: 3, cols: 4, k: 3,
		nodes: 276911233, xWins: 79797600, oWins: 56875968, draws: 14515200,
		wins:           []uint64{0, 0, 0, 0, 0, 6048, 39744, 692928, 2813184, 17697024, 33114240, 61401600, 20908800},
		canonicalGames: 36341024, value: mnk.Win,
		positions: 111973, canonical: 28275,
		terminal: [4]uint64{0, 20312, 12070, 28}, canonicalTerminal: [4]uint64{0, 5125, 3052, 10},
		byPly: []uint64{1, 12, 132, 660, 2970, 7920, 17304, 25956, 26040, 20832, 7644, 2354, 148},
	},
	{
		rows: 4, cols: 3, k: 3,
		nodes: 276911233, xWins: 79797600, oWins: 56875968, draws: 14515200,
		wins:           []uint64{0, 0, 0, 0, 0, 6048, 39744, 692928, 2813184, 17697024, 33114240, 61401600, 20908800},
		canonicalGames: 36341024, value: mnk.Win,
		positions: 111973, canonical: 28275,
		terminal: [4]uint64{0, 20312, 12070, 28}, canonicalTerminal: [4]uint64{0, 5125, 3052, 10},
		byPly: []uint64{1, 12, 132, 660, 2970, 7920, 17304, 25956, 26040, 20832, 7644, 2354, 148},
	},
}

func TestKnownAnswers(t *testing.T) {
	for _, ka := range knownAnswers {
		name := fmt.Sprintf("%d,%d,%d", ka.rows, ka.cols, ka.k)
		t.Run(name, func(t *testing.T) {
			if ka.deep && testing.Short() {
				t.Skip("deep case; 3,4,3 covers the same code under -short")
			}
			g := mnk.MustNew(ka.rows, ka.cols, ka.k)
			var wins [65]uint64
			copy(wins[:], ka.wins)
			var byPly [65]uint64
			copy(byPly[:], ka.byPly)
			want := ref.Counts{
				Nodes: ka.nodes, Draws: ka.draws, CanonicalGames: ka.canonicalGames, Wins: wins, Value: ka.value,
				Positions: ka.positions, Canonical: ka.canonical, Terminal: ka.terminal,
				CanonicalTerminal: ka.canonicalTerminal, ByPly: byPly,
				HasValue: true, HasCG: true, HasPositions: true,
			}
			compareCounts(t, name, engineCounts(g, mnk.Position{}), want)
			s := New(g).Count(mnk.Position{})
			if got := s.XWins(); got != ka.xWins {
				t.Errorf("X wins = %d, want %d", got, ka.xWins)
			}
			if got := s.OWins(); got != ka.oWins {
				t.Errorf("O wins = %d, want %d", got, ka.oWins)
			}
			if got, want := s.Games(), ka.xWins+ka.oWins+ka.draws; got != want {
				t.Errorf("games = %d, want %d", got, want)
			}
		})
	}
}

// TestPublishedFigures checks the figures given in the specification in the
// form they were given.
func TestPublishedFigures(t *testing.T) {
	g := mnk.MustNew(3, 3, 3)
	s := New(g).Count(mnk.Position{})
	byLength := map[int]uint64{5: 1440, 6: 5328, 7: 47952, 8: 72576, 9: 127872}
	for l := range 10 {
		got := s.Wins[l]
		if l == g.Cells() {
			got += s.Draws
		}
		if got != byLength[l] {
			t.Errorf("3,3,3 games of length %d = %d, want %d", l, got, byLength[l])
		}
	}
	if got, want := s.Games(), uint64(255168); got != want {
		t.Errorf("3,3,3 games = %d, want %d", got, want)
	}
	pc := Positions(g, mnk.Position{})
	if got, want := pc.Terminal[mnk.XWin]+pc.Terminal[mnk.OWin]+pc.Terminal[mnk.Draw], uint64(958); got != want {
		t.Errorf("3,3,3 terminal positions = %d, want %d", got, want)
	}
	if got, want := pc.CanonicalTerminal[mnk.XWin]+pc.CanonicalTerminal[mnk.OWin]+pc.CanonicalTerminal[mnk.Draw], uint64(138); got != want {
		t.Errorf("3,3,3 canonical terminal positions = %d, want %d", got, want)
	}
	if testing.Short() {
		return
	}
	g = mnk.MustNew(4, 4, 4)
	s = New(g).Count(mnk.Position{})
	if got, want := s.Games(), uint64(15_038_733_958_272); got != want {
		t.Errorf("4,4,4 games = %d, want %d", got, want)
	}
	if got, want := Positions(g, mnk.Position{}).Positions, uint64(9_722_011); got != want {
		t.Errorf("4,4,4 positions = %d, want %d", got, want)
	}
}
