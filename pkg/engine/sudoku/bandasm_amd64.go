//go:build amd64 && !purego

package sudoku

import "golang.org/x/sys/cpu"

// useBandAsm selects propagateAsm (bandasm_amd64.s) over propagate's loop
// in Go: it needs BMI1 and BMI2 (TZCNT, BLSR, ANDN, PEXT, PDEP, SHLX). A
// variable, so that the tests can run both.
var useBandAsm = haveBandAsm

var haveBandAsm = cpu.X86.HasBMI1 && cpu.X86.HasBMI2

// propagateAsm is propagate's loop in assembly (updateBand, nakedSingles,
// columnSingles and place written in), with the same result and the same
// state afterwards: its band updates mark in todo only the words that a
// placement changed, which spares the mispredicted test of unchanged
// words.
//
//go:noescape
func propagateAsm(st *state) bool

// placeGivens is the givens loop of Solve (state.givens) in assembly, with
// the same result and the same state afterwards.
//
//go:noescape
func placeGivens(st *state, grid *Grid) bool
