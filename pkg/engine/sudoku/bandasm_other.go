//go:build !amd64 || purego

package sudoku

// useBandAsm is false: propagate runs its band update loop in Go.
const useBandAsm = false

func bandUpdates(st *state) bool { panic("sudoku: no assembly band updates") }
