//go:build amd64 && !purego

package sudoku

import "golang.org/x/sys/cpu"

// useTriadAsm selects triadScanAVX512 over triadScanGo in triadScan. A
// variable, so that the tests can run both.
var useTriadAsm = haveTriadAsm

// haveTriadAsm says whether the CPU runs triadScanAVX512: AVX-512 with its
// byte, byte-permutation, bit-algorithm and Galois-field extensions
// (Intel since Ice Lake, AMD since Zen 4). Elsewhere, and under valgrind,
// whose CPU has no AVX-512, triadScan runs triadScanGo.
var haveTriadAsm = cpu.X86.HasAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW &&
	cpu.X86.HasAVX512VBMI && cpu.X86.HasAVX512BITALG && cpu.X86.HasAVX512GFNI

// triadAsmName names the assembly kernel and what it needs.
const triadAsmName = "AVX-512 with BW, VBMI, BITALG and GFNI"

// triadScanAVX512 is triadScanGo in AVX-512 (triads_amd64.s).
//
//go:noescape
func triadScanAVX512(f *[32]uint32, tr *triadView, s *triadSums) bool
