//go:build !amd64 || purego

package sudoku

// haveTriadAsm is false: this build has no assembly triad scan.
var haveTriadAsm = false

// useTriadAsm is a variable for the tests, as on amd64.
var useTriadAsm = haveTriadAsm

func triadScanAVX512(f *[32]uint32, tr *triadView, s *triadSums) bool {
	panic("sudoku: no assembly triad scan")
}

// haveTriadAVX2 is false: this build has no assembly triad scan.
var haveTriadAVX2 = false

// useTriadAVX2 is a variable for the tests, as on amd64.
var useTriadAVX2 = haveTriadAVX2

func triadScanAVX2(f *[32]uint32, tr *triadView, s *triadSums) bool {
	panic("sudoku: no assembly triad scan")
}
