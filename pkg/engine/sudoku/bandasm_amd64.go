//go:build amd64 && !purego

package sudoku

import "math/bits"

// bandAsmISA is what propagateAsm and placeGivens (bandasm_amd64.s) use
// beyond SSE2: TZCNT, BLSR and ANDN (BMI1), PEXT, PDEP, SHLX and RORX
// (BMI2), and POPCNT, which every processor with BMI2 has.
const bandAsmISA = isaBMI1 | isaBMI2 | isaPOPCNT

// haveBandAsm says whether this processor runs the band assembly: its
// tests run wherever it does, chosen or not.
var haveBandAsm = hostISA.missing(bandAsmISA) == ""

// useBandAsm selects propagateAsm and placeGivens over their Go. A
// variable, so that the tests can run both.
var useBandAsm = chooseBandAsm(hostISA, slowPEXT())

// chooseBandAsm is useBandAsm's rule: the assembly where the processor has
// its instructions and its PEXT and PDEP are fast (slowPEXT); the Go is the
// faster path where they are microcoded.
func chooseBandAsm(have isa, slowPEXT bool) bool {
	return have.missing(bandAsmISA) == "" && !slowPEXT
}

// slowPEXT reports an AMD (or Hygon) processor before Zen 3 (family 0x19):
// there PEXT and PDEP are microcoded, tens to hundreds of cycles where
// Intel and Zen 3 take three, and the Go code is the faster path.
func slowPEXT() bool {
	_, b, c, d := cpuid(0, 0)
	a, _, _, _ := cpuid(1, 0)
	return slowPEXTOn(b, c, d, a)
}

// slowPEXTOn is slowPEXT's test of the vendor (CPUID leaf 0's EBX, ECX,
// EDX) and the signature (leaf 1's EAX).
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

// cpuid executes CPUID with EAX=leaf and ECX=sub (cpuid_amd64.s).
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// propagateAsm is propagate's loop in assembly (updateBand, nakedSingles,
// columnSingles and place written in), with the same result and the same
// state afterwards: its band updates mark in todo only the words that a
// placement changed, which spares the mispredicted test of unchanged
// words.
//
//go:noescape
func propagateAsm(st *state) bool

// placeGivens is the givens loop of Solve (state.givens) in assembly, on
// st the empty grid: the same result, and when it succeeds the same state
// afterwards (computed in bulk, not one given at a time).
//
//go:noescape
func placeGivens(st *state, grid *Grid) bool

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
