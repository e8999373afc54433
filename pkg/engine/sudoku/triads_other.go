//go:build !amd64 || purego

package sudoku

// useTriadAsm and haveTriadAsm are false: this build has no assembly
// triad scan (useTriadAsm a variable for the tests, as on amd64).
var useTriadAsm, haveTriadAsm = false, false

// triadScanAsm is triadScanGo where there is no assembly version.
func triadScanAsm(f *[32]uint32, tr *triadView, s *triadSums) bool { return triadScanGo(f, tr, s) }

// triadAsmName names the kernel that triadScanAsm runs.
const triadAsmName = "none in a purego build or off amd64"
