//go:build amd64 && !purego

package sudoku

import "golang.org/x/sys/cpu"

// useSolutionAsm selects solutionAVX512 in state.solution and
// checkAVX512 in Check. A variable, so that the tests can run both.
var useSolutionAsm = haveSolutionAsm

// haveSolutionAsm says whether the CPU runs solutionAVX512 and
// checkAVX512: AVX-512 with byte and word instructions (Intel since
// Skylake-SP, AMD since Zen 4).
var haveSolutionAsm = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW

// solutionAVX512 writes the solution of f, a solved state's words, to grid
// (solution_amd64.s).
//
//go:noescape
func solutionAVX512(f *[32]uint32, grid *Grid)

// checkAVX512 is checkFast in AVX-512 BW (solution_amd64.s).
//
//go:noescape
func checkAVX512(puzzle, solution *Grid) bool
