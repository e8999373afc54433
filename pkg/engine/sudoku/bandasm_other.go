//go:build !amd64 || purego

package sudoku

// useBandAsm is false: bandUpdatesGo is the only band update loop.
const useBandAsm = false

const haveBandAsm = false

func bandUpdates(st *state) bool { panic("sudoku: no assembly band updates") }
