//go:build amd64 && !purego

package sudoku

import (
	"math"
	"math/bits"
	"time"
)

// bandAsmISA is what propagateAsm and placeGivens (bandasm_amd64.s) use
// beyond SSE2: TZCNT, BLSR and ANDN (BMI1), PEXT, PDEP, SHLX and RORX
// (BMI2), and POPCNT, which every processor with BMI2 has.
const bandAsmISA = isaBMI1 | isaBMI2 | isaPOPCNT

// haveBandAsm says whether this processor runs the band assembly: its
// tests run wherever it does, chosen or not.
var haveBandAsm = hostISA.missing(bandAsmISA) == ""

// useBandAsm selects the band assembly over the Go wherever the processor
// has its instructions: propagateAsm and placeGivens, or
// propagateAsmNoPEXT and placeGivensNoPEXT where useBandNoPEXT says so. A
// variable, so that the tests can run every path.
var useBandAsm = haveBandAsm

// useBandNoPEXT selects propagateAsmNoPEXT and placeGivensNoPEXT where
// PEXT and PDEP are slow (slowPEXT).
var useBandNoPEXT = slowPEXT()

// colAVX512ISA is what propagateAsm's column pass in AVX-512 (colVector)
// uses besides the band assembly: AVX-512F.
const colAVX512ISA = bandAsmISA | isaAVX512F

// haveColAVX512 says whether this processor runs the column pass in
// AVX-512.
var haveColAVX512 = hostISA.missing(colAVX512ISA) == ""

// useColAVX512 has propagateAsm seek the column singles of all its digits
// at once in AVX-512 (colVector) rather than digit by digit: on
// serg-benchmark, whose puzzles make 8 column passes over 4.4 digits
// each, of which 9 in 10 find nothing, the loop was 14% of the time. A
// variable, so that the tests can run both.
var useColAVX512 = haveColAVX512

// colAVX2ISA is what the column pass in AVX2 (colVector2) uses besides
// the band assembly: AVX2.
const colAVX2ISA = bandAsmISA | isaAVX2

// haveColAVX2 says whether this processor runs the column pass in AVX2.
var haveColAVX2 = hostISA.missing(colAVX2ISA) == ""

// useColAVX2 has propagateAsm seek the column singles of digits 0-7 at
// once in AVX2 (colVector2) where useColAVX512 is off. A variable, so
// that the tests can run it.
var useColAVX2 = haveColAVX2

// pextRatio is how many times longer a PEXT took than an IMUL when the
// package was initialised, each in a chain of dependent operations (0
// without BMI2): about 1 where PEXT takes three cycles as IMUL does (1.00
// on an AMD Zen 4; Intel since Haswell, AMD since Zen 3 document three),
// several times more where it is microcoded (AMD Zen 1 and 2, whose PEXT
// takes longer the more bits its mask has: not measured here, no such
// processor was at hand).
var pextRatio = measurePEXT()

// slowPEXT reports that PEXT, measured on this processor, took more than
// twice as long as an IMUL (pextRatio): the choice of the band assembly
// rests on that measurement, not on the vendor or the family
// (slowPEXTOn, which the tests hold the measurement to).
func slowPEXT() bool { return pextRatio > 2 }

// measurePEXT times chains of 2,048 dependent PEXTs and IMULs (about 6,000
// cycles each where PEXT is fast), seven times each, alternated, and
// returns the ratio of the shortest times: a few tens of microseconds,
// once, at start-up.
func measurePEXT() float64 {
	if hostISA.missing(isaBMI2) != "" {
		return 0
	}
	const n = 2048
	var sink uint32
	bestPEXT, bestIMUL := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for range 7 {
		t0 := time.Now()
		sink += pextChain(n, sink)
		t1 := time.Now()
		sink += imulChain(n, sink)
		t2 := time.Now()
		bestPEXT, bestIMUL = min(bestPEXT, t1.Sub(t0)), min(bestIMUL, t2.Sub(t1))
	}
	return float64(bestPEXT) / float64(max(bestIMUL, 1))
}

// slowPEXTOn reports an AMD (or Hygon) processor before Zen 3 (family
// 0x19), from CPUID leaf 0's EBX, ECX, EDX (the vendor) and leaf 1's EAX
// (the signature): those whose PEXT and PDEP are microcoded, as their
// vendor documents. The tests check the measurement against it.
func slowPEXTOn(b, c, d, signature uint32) bool {
	amd := b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163   // "AuthenticAMD"
	hygon := b == 0x6f677948 && d == 0x6e65476e && c == 0x656e6975 // "HygonGenuine"
	if !amd && !hygon {
		return false
	}
	family := signature >> 8 & 0xF
	if family == 0xF {
		family += signature >> 20 & 0xFF
	}
	return family < 0x19
}

// slowPEXTByFamily is slowPEXTOn for this processor.
func slowPEXTByFamily() bool {
	_, b, c, d := cpuid(0, 0)
	a, _, _, _ := cpuid(1, 0)
	return slowPEXTOn(b, c, d, a)
}

// pextChain and imulChain run n dependent PEXTs (with the band words'
// mini-row mask) or IMULs, each followed by an XOR, from x
// (cpuid_amd64.s).
func pextChain(n int, x uint32) uint32
func imulChain(n int, x uint32) uint32

// cpuid executes CPUID with EAX=leaf and ECX=sub (cpuid_amd64.s).
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// propagateAsm is propagate's loop in assembly (the band updates, nakedSingles,
// columnSingles and place written in), with the same result and the same
// state afterwards: its band updates mark in todo only the words that a
// placement changed, which spares the mispredicted test of unchanged
// words.
//
//go:noescape
func propagateAsm(st *state) bool

// propagateAsmNoPEXT is propagateAsm without PEXT and PDEP (multiplications,
// shifts and spread9 instead), for processors where they are microcoded:
// the same computation in the same order, so the same state afterwards.
//
//go:noescape
func propagateAsmNoPEXT(st *state) bool

// spread9[x]: bit k of x moved to bit 3k (PDEP with 0x1249249), for
// propagateAsmNoPEXT.
var spread9 [512]uint32

func init() {
	for x := range 512 {
		for k := range 9 {
			spread9[x] |= uint32(x>>k&1) << (3 * k)
		}
	}
}

// placeGivens is the givens loop of Solve (state.givens) in assembly, on
// st the empty grid: the same result, and when it succeeds the same state
// afterwards (computed in bulk, not one given at a time).
//
//go:noescape
func placeGivens(st *state, grid *Grid) bool

// placeGivensNoPEXT is placeGivens without PEXT and PDEP, for where
// useBandNoPEXT says they are slow.
//
//go:noescape
func placeGivensNoPEXT(st *state, grid *Grid) bool

// givenPeers[p], for placeGivens: for the mini-rows p (bit 3r+x: row r in
// box x) that a digit's givens occupy in a band, in bits 0-26 the cells of
// their rows and boxes; in bits 32-63 the number of mini-rows, plus 256 if
// two of them share a row or a box.
var givenPeers [512]uint64

func init() {
	const box0 = 7 | 7<<9 | 7<<18 // box 0's cells in a band word
	for p := range 512 {
		var cells uint32
		n := uint64(bits.OnesCount(uint(p)))
		for m := range 9 {
			if p>>m&1 != 0 {
				cells |= rowBits<<(9*(m/3)) | box0<<(3*(m%3))
			}
		}
		for k := range 3 {
			if bits.OnesCount(uint(p>>(3*k)&7)) > 1 || bits.OnesCount(uint(p>>k&0x49)) > 1 {
				n += 256 // two givens in a row or in a box
			}
		}
		givenPeers[p] = uint64(cells) | n<<32
	}
}
