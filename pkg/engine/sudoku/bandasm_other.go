//go:build !amd64 || purego

package sudoku

// useBandAsm is false: propagate runs its loop in Go.
const (
	useBandAsm    = false
	useBandNoPEXT = false
)

func propagateAsm(st *state) bool { panic("sudoku: no assembly propagate") }

func propagateAsmNoPEXT(st *state) bool { panic("sudoku: no assembly propagate") }

func placeGivens(st *state, grid *Grid) bool { panic("sudoku: no assembly givens") }

func placeGivensNoPEXT(st *state, grid *Grid) bool { panic("sudoku: no assembly givens") }
