//go:build !amd64 || purego

package sudoku

// haveSolutionAsm is false: this build has no assembly solution reader.
var haveSolutionAsm = false

// useSolutionAsm is a variable for the tests, as on amd64.
var useSolutionAsm = haveSolutionAsm

func solutionAVX512(f *[32]uint32, grid *Grid) { panic("sudoku: no assembly solution") }

func checkAVX512(puzzle, solution *Grid) bool { panic("sudoku: no assembly check") }

// haveSolutionAVX2 is false: this build has no assembly solution reader.
var haveSolutionAVX2 = false

// useSolutionAVX2 is a variable for the tests, as on amd64.
var useSolutionAVX2 = haveSolutionAVX2

func solutionAVX2(f *[32]uint32, grid *Grid) {
	panic("sudoku: no assembly solution reader")
}

func checkAVX2(puzzle, solution *Grid) bool { panic("sudoku: no assembly check") }
