//go:build amd64 && !purego

package sudoku

// triadAsmISA is what triadScanAVX512 (triads_amd64.s) uses: AVX-512 with
// its byte and word (BW), vector length (VL), byte permutation (VBMI),
// bit algorithm (BITALG) and Galois field (GFNI) extensions, and AVX2
// (Intel since Ice Lake, AMD since Zen 4).
const triadAsmISA = isaAVX2 | isaAVX512F | isaAVX512BW | isaAVX512VL | isaAVX512VBMI | isaAVX512BITALG | isaGFNI

// haveTriadAsm says whether this processor runs triadScanAVX512 (not
// valgrind's, which has no AVX-512: there triadScan runs triadScanGo).
var haveTriadAsm = hostISA.missing(triadAsmISA) == ""

// useTriadAsm selects triadScanAVX512 over triadScanGo in triadScan
// wherever it runs. A variable, so that the tests can run both.
var useTriadAsm = haveTriadAsm

// triadAsmName names the assembly kernel and what it needs.
const triadAsmName = "AVX-512 with BW, VL, VBMI, BITALG and GFNI"

// triadScanAVX512 is triadScanGo in AVX-512 (triads_amd64.s).
//
//go:noescape
func triadScanAVX512(f *[32]uint32, tr *triadView, s *triadSums) bool

// triadAVX2ISA is what triadScanAVX2 (triads_amd64.s) uses: AVX2 alone
// (Intel since Haswell, AMD since Zen 1).
const triadAVX2ISA = isaAVX2

// haveTriadAVX2 says whether this processor runs triadScanAVX2.
var haveTriadAVX2 = hostISA.missing(triadAVX2ISA) == ""

// useTriadAVX2 selects triadScanAVX2 over triadScanGo in triadScan where
// triadScanAVX512 is not chosen. A variable, so that the tests can run
// every kernel on a processor that has them all.
var useTriadAVX2 = haveTriadAVX2

// triadAVX2Name names the AVX2 kernel.
const triadAVX2Name = "AVX2"

// triadScanAVX2 is triadScanGo in AVX2 (triads_amd64.s).
//
//go:noescape
func triadScanAVX2(f *[32]uint32, tr *triadView, s *triadSums) bool
