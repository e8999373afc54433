//go:build amd64 && !purego

package sudoku

// solutionAsmISA is what solutionAVX512 and checkAVX512
// (solution_amd64.s) use: AVX-512 with byte and word instructions (BW),
// some on 256-bit registers (VL): Intel since Skylake-SP, AMD since Zen 4.
const solutionAsmISA = isaAVX512F | isaAVX512BW | isaAVX512VL

// haveSolutionAsm says whether this processor runs solutionAVX512 and
// checkAVX512.
var haveSolutionAsm = hostISA.missing(solutionAsmISA) == ""

// useSolutionAsm selects solutionAVX512 in state.solution and
// checkAVX512 in Check wherever they run. A variable, so that the tests
// can run both.
var useSolutionAsm = haveSolutionAsm

// solutionAVX2ISA is what solutionAVX2 (solution_amd64.s) uses.
const solutionAVX2ISA = isaAVX2

// haveSolutionAVX2 says whether this processor runs solutionAVX2.
var haveSolutionAVX2 = hostISA.missing(solutionAVX2ISA) == ""

// useSolutionAVX2 selects solutionAVX2 in state.solution and checkAVX2
// in Check where the AVX-512 ones are not chosen. A variable, so that the tests can run
// both.
var useSolutionAVX2 = haveSolutionAVX2

// solutionAVX2 is solutionAVX512 in AVX2 (solution_amd64.s).
//
//go:noescape
func solutionAVX2(f *[32]uint32, grid *Grid)

// checkAVX2 is checkFast in AVX2 (solution_amd64.s).
//
//go:noescape
func checkAVX2(puzzle, solution *Grid) bool

// solutionAVX512 writes the solution of f, a solved state's words, to grid
// (solution_amd64.s).
//
//go:noescape
func solutionAVX512(f *[32]uint32, grid *Grid)

// checkAVX512 is checkFast in AVX-512 BW (solution_amd64.s).
//
//go:noescape
func checkAVX512(puzzle, solution *Grid) bool

// checkIdx[k][u], for checkAVX512: the k-th cell of unit u (rows 0-8,
// columns 9-17, boxes 18-26; lanes 27-31 cell 0), less 49 for a cell of
// 64 or more, and checkHigh[k] the lanes u whose cell is 64 or more.
var (
	checkIdx  [9][32]uint16
	checkHigh [9]uint32
)

func init() {
	for k := range checkIdx {
		for u := range 27 {
			var cell int
			switch {
			case u < 9:
				cell = 9*u + k
			case u < 18:
				cell = 9*k + u - 9
			default:
				b := u - 18
				cell = 27*(b/3) + 3*(b%3) + 9*(k/3) + k%3
			}
			checkIdx[k][u] = uint16(cell)
			if cell >= 64 {
				checkIdx[k][u] = uint16(cell - 49)
				checkHigh[k] |= 1 << u
			}
		}
	}
}
