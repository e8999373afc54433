//go:build !amd64 || purego

package sudoku

// useSolutionAsm and haveSolutionAsm are false: this build has no
// assembly solution reader (useSolutionAsm a variable for the tests, as
// on amd64).
var useSolutionAsm, haveSolutionAsm = false, false

func solutionAVX512(f *[32]uint32, grid *Grid) { panic("sudoku: no assembly solution") }
