//go:build amd64 && !purego

#include "textflag.h"

// func solutionAVX512(f *[32]uint32, grid *Grid)
//
// state.solution with AVX-512 BW: for each digit, its cells of the grid
// as bit masks (cells 0-63: f[3d] | f[3d+1]<<27 | f[3d+2]<<54; cells
// 49-80: f[3d+1]>>22 | f[3d+2]<<5) broadcast the digit into those bytes
// of two vectors, which are stored whole: 64 bytes at 0 and 32 at 49
// (the overlap holds the same bytes). About 160 instructions and two
// stores against 81 scattered byte stores, and the checker's wide loads
// that follow read whole stores.
//
// Registers: AX f, BX g, DX the digit, R8-R11 scratch, Z0 cells 0-63,
// Y1 cells 49-80, K1 K2 the digit's masks.
TEXT ·solutionAVX512(SB), NOSPLIT, $0-16
	MOVQ	f+0(FP), AX
	MOVQ	grid+8(FP), BX
	VPXORQ	Z0, Z0, Z0
	VPXORQ	Z1, Z1, Z1

#define DIGIT(d) \
	MOVL	(12*(d))(AX), R8; \
	MOVL	(12*(d)+4)(AX), R9; \
	MOVL	(12*(d)+8)(AX), R10; \
	MOVQ	R9, R11; \
	SHLQ	$27, R11; \
	ORQ	R11, R8; \
	MOVQ	R10, R11; \
	SHLQ	$54, R11; \
	ORQ	R11, R8; \
	KMOVQ	R8, K1; \
	SHRL	$22, R9; \
	SHLL	$5, R10; \
	ORL	R10, R9; \
	KMOVD	R9, K2; \
	MOVL	$((d)+1), DX; \
	VPBROADCASTB	DX, K1, Z0; \
	VPBROADCASTB	DX, K2, Y1

	DIGIT(0)
	DIGIT(1)
	DIGIT(2)
	DIGIT(3)
	DIGIT(4)
	DIGIT(5)
	DIGIT(6)
	DIGIT(7)
	DIGIT(8)
#undef DIGIT

	VMOVDQU8	Z0, (BX)
	VMOVDQU8	Y1, 49(BX)
	VZEROUPPER
	RET

// func checkAVX512(puzzle, solution *Grid) bool
//
// checkFast with AVX-512 BW, on whole vectors: the givens are compared in
// two byte compares (cells 0-63 and 49-80: unmasked loads, as a masked
// load may have to wait for the stores that just wrote the grids to reach
// the cache), and each cell's value v becomes the 16-bit word 1<<v (VPSLLVW: 0
// for v of 16 or more). The words (Z4-Z5 cells 0-63, Z6 cells 49-80) are
// then gathered nine times by the tables of checkIdx (VPERMI2W for cells
// 0-63, VPERMW under the mask checkHigh for 64-80, indexed from 49), so
// that vector k holds in lane u the k-th cell of
// unit u (rows 0-8, columns 9-17, boxes 18-26): the OR of the nine
// vectors is the OR of each unit's cells, and a unit is full when its
// lane is exactly bits 1 to 9. A cell outside 1-9 sets a bit outside them
// or none, so no separate range test is needed.
//
// Registers: AX puzzle, BX solution, CX scratch, DX checkIdx, Z0, Y1, Z2,
// Y3 the solution's and the puzzle's bytes, Z4-Z6 the cells' bits, Z7 the
// words 1, then 0x3FE, Z8 the OR, Z9 a gather, Z10 an index, K1-K5 masks.
TEXT ·checkAVX512(SB), NOSPLIT, $0-17
	MOVQ	puzzle+0(FP), AX
	MOVQ	solution+8(FP), BX
	VMOVDQU8	(BX), Z0
	VMOVDQU8	49(BX), Y1
	VMOVDQU8	(AX), Z2
	VMOVDQU8	49(AX), Y3

	// The givens: nonzero and different from the solution.
	VPTESTMB	Z2, Z2, K2
	VPCMPUB	$4, Z0, Z2, K2, K3
	VPTESTMB	Y3, Y3, K4
	VPCMPUB	$4, Y1, Y3, K4, K5
	KORQ	K3, K5, K3
	KORTESTQ	K3, K3
	JNZ	bad

	// The cells' bits, cells 0-31, 32-63 and 49-80.
	MOVL	$1, CX
	VPBROADCASTW	CX, Z7
	VPMOVZXBW	Y0, Z4
	VEXTRACTI64X4	$1, Z0, Y5
	VPMOVZXBW	Y5, Z5
	VPMOVZXBW	Y1, Z6
	VPSLLVW	Z4, Z7, Z4
	VPSLLVW	Z5, Z7, Z5
	VPSLLVW	Z6, Z7, Z6

	LEAQ	·checkIdx(SB), DX
	LEAQ	·checkHigh(SB), CX
	VPXORQ	Z8, Z8, Z8
#define GATHER(k) \
	VMOVDQU16	(64*(k))(DX), Z10; \
	VMOVDQA64	Z10, Z9; \
	VPERMI2W	Z5, Z4, Z9; \
	KMOVD	(4*(k))(CX), K2; \
	VPERMW	Z6, Z10, K2, Z9; \
	VPORQ	Z9, Z8, Z8
	GATHER(0)
	GATHER(1)
	GATHER(2)
	GATHER(3)
	GATHER(4)
	GATHER(5)
	GATHER(6)
	GATHER(7)
	GATHER(8)
#undef GATHER

	// Lanes 0-26 must all be bits 1-9.
	MOVL	$0x3FE, CX
	VPBROADCASTW	CX, Z7
	MOVL	$0x7FFFFFF, CX
	KMOVD	CX, K1
	VPCMPUW	$4, Z7, Z8, K1, K2
	KORTESTD	K2, K2
	JNZ	bad
	VZEROUPPER
	MOVB	$1, ret+16(FP)
	RET
bad:
	VZEROUPPER
	MOVB	$0, ret+16(FP)
	RET

// func solutionAVX2(f *[32]uint32, grid *Grid)
//
// state.solution with AVX2: the digits' cells as 81-bit masks (cells 0-63
// and 49-80, as solutionAVX512 makes them) are ORed into four bit planes,
// plane j the cells whose digit has bit j; each plane's mask is spread to
// one byte a cell (VPSHUFB copies the byte that holds the cell's bit into
// the cell's byte, VPAND and VPCMPEQB test the bit), and the planes are
// summed in Horner's order (acc = 2*acc - plane, a plane's bytes being -1
// or 0). Three stores of 32 bytes, at 0, 32 and 49 (the overlap holds the
// same bytes).
//
// Registers: AX f, then the grid; R8-R11 planes 0-3 of cells 0-63, R12,
// R13, SI, DI those of cells 49-80; BX, CX the digit's masks, DX scratch;
// Y0-Y2 the sums, Y3-Y6 scratch, Y7-Y9 the byte selectors, Y10 the bits.
TEXT ·solutionAVX2(SB), NOSPLIT, $0-16
	MOVQ	f+0(FP), AX
	XORL	R8, R8
	XORL	R9, R9
	XORL	R10, R10
	XORL	R11, R11
	XORL	R12, R12
	XORL	R13, R13
	XORL	SI, SI
	XORL	DI, DI

	// BX: cells 0-63 of digit d, CX: its cells 49-80.
#define MASKS(d) \
	MOVL	(12*(d))(AX), BX; \
	MOVL	(12*(d)+4)(AX), CX; \
	MOVQ	CX, DX; \
	SHLQ	$27, DX; \
	ORQ	DX, BX; \
	SHRL	$22, CX; \
	MOVL	(12*(d)+8)(AX), DX; \
	SHLQ	$54, DX; \
	ORQ	DX, BX; \
	MOVL	(12*(d)+8)(AX), DX; \
	SHLL	$5, DX; \
	ORL	DX, CX
#define PLANE0 ORQ BX, R8; ORL CX, R12
#define PLANE1 ORQ BX, R9; ORL CX, R13
#define PLANE2 ORQ BX, R10; ORL CX, SI
#define PLANE3 ORQ BX, R11; ORL CX, DI
	MASKS(0) // 1
	PLANE0
	MASKS(1) // 2
	PLANE1
	MASKS(2) // 3
	PLANE0
	PLANE1
	MASKS(3) // 4
	PLANE2
	MASKS(4) // 5
	PLANE0
	PLANE2
	MASKS(5) // 6
	PLANE1
	PLANE2
	MASKS(6) // 7
	PLANE0
	PLANE1
	PLANE2
	MASKS(7) // 8
	PLANE3
	MASKS(8) // 9
	PLANE0
	PLANE3
#undef MASKS
#undef PLANE0
#undef PLANE1
#undef PLANE2
#undef PLANE3

	VMOVDQU	solBytes0<>(SB), Y7
	VMOVDQU	solBytes1<>(SB), Y8
	VMOVDQU	solBits<>(SB), Y10
	VPXOR	Y0, Y0, Y0
	VPXOR	Y1, Y1, Y1
	VPXOR	Y2, Y2, Y2

	// SPREAD: acc = 2*acc - (the bytes of the cells whose bit is set in
	// the plane broadcast in b, as chosen by sel).
#define SPREAD(b, sel, acc) \
	VPSHUFB	sel, b, Y3; \
	VPAND	Y10, Y3, Y3; \
	VPCMPEQB	Y10, Y3, Y3; \
	VPADDB	acc, acc, acc; \
	VPSUBB	Y3, acc, acc
#define PLANE(lo, hi) \
	VMOVQ	lo, X4; \
	VPBROADCASTQ	X4, Y4; \
	VMOVQ	hi, X5; \
	VPBROADCASTQ	X5, Y5; \
	SPREAD(Y4, Y7, Y0); \
	SPREAD(Y4, Y8, Y1); \
	SPREAD(Y5, Y7, Y2)
	PLANE(R11, DI)
	PLANE(R10, SI)
	PLANE(R9, R13)
	PLANE(R8, R12)
#undef SPREAD
#undef PLANE

	MOVQ	grid+8(FP), AX
	VMOVDQU	Y0, (AX)
	VMOVDQU	Y1, 32(AX)
	VMOVDQU	Y2, 49(AX)
	VZEROUPPER
	RET

// The byte of a 64-bit mask that holds cell i's bit, for cells 0-31
// (solBytes0) and 32-63 (solBytes1), lane by lane as VPSHUFB reads them;
// solBits the bit within it.
DATA solBytes0<>+0(SB)/8, $0x0000000000000000
DATA solBytes0<>+8(SB)/8, $0x0101010101010101
DATA solBytes0<>+16(SB)/8, $0x0202020202020202
DATA solBytes0<>+24(SB)/8, $0x0303030303030303
GLOBL solBytes0<>(SB), RODATA|NOPTR, $32
DATA solBytes1<>+0(SB)/8, $0x0404040404040404
DATA solBytes1<>+8(SB)/8, $0x0505050505050505
DATA solBytes1<>+16(SB)/8, $0x0606060606060606
DATA solBytes1<>+24(SB)/8, $0x0707070707070707
GLOBL solBytes1<>(SB), RODATA|NOPTR, $32
DATA solBits<>+0(SB)/8, $0x8040201008040201
DATA solBits<>+8(SB)/8, $0x8040201008040201
DATA solBits<>+16(SB)/8, $0x8040201008040201
DATA solBits<>+24(SB)/8, $0x8040201008040201
GLOBL solBits<>(SB), RODATA|NOPTR, $32

// func checkAVX2(puzzle, solution *Grid) bool
//
// checkFast with AVX2. The givens (nonzero and different from the
// solution) and the range (a cell minus 1 above 8, unsigned) are tested on
// three vectors of 32 cells (0-31, 32-63, 49-80). Then the units, by a
// counting argument: a grid of digits 1-9 is a solution when each of the
// digits 1 to 8 has exactly one cell in each row, and a cell in each
// column and each box (nine cells in nine columns and nine boxes: one in
// each; the ninth cell of every unit is then a 9). The cells' four bit
// planes (VPSLLW and VPMOVMSKB) become band words, and digit d's band
// words, lane d-1 of Y11-Y13, are the AND of the planes or their
// complements (checkDigitBits); for each band word w, with its three rows
// as 9-bit fields: every field nonzero, w & (w - 0x40201) zero (one cell a
// row), its columns w|w>>9|w>>18 ORed over the bands all nine, and its
// boxes (3-bit groups of those columns) all three.
//
// Registers: AX puzzle, BX solution, Y0-Y2 the solution's cells, Y3-Y5
// the puzzle's, Y6-Y10 scratch, Y11-Y13 the digits' band words, Y14 the
// errors, Y15 the columns; R8-R10 a plane's masks and band words.
TEXT ·checkAVX2(SB), NOSPLIT, $0-17
	MOVQ	puzzle+0(FP), AX
	MOVQ	solution+8(FP), BX
	VMOVDQU	(BX), Y0
	VMOVDQU	32(BX), Y1
	VMOVDQU	49(BX), Y2
	VMOVDQU	(AX), Y3
	VMOVDQU	32(AX), Y4
	VMOVDQU	49(AX), Y5

	// Every given kept (p == 0 or p == s) and every cell 1-9: all ones.
	VPXOR	Y7, Y7, Y7
	VMOVDQU	checkOnes<>(SB), Y9
	VMOVDQU	checkEights<>(SB), Y10
#define CELLS(s, p, acc) \
	VPCMPEQB	s, p, Y6; \
	VPCMPEQB	Y7, p, Y8; \
	VPOR	Y8, Y6, Y6; \
	VPSUBB	Y9, s, Y8; \
	VPMINUB	Y10, Y8, p; \
	VPCMPEQB	Y8, p, Y8; \
	VPAND	Y8, Y6, acc
	CELLS(Y0, Y3, Y3)
	CELLS(Y1, Y4, Y4)
	CELLS(Y2, Y5, Y5)
#undef CELLS
	VPAND	Y4, Y3, Y3
	VPAND	Y5, Y3, Y3
	VPMOVMSKB	Y3, CX
	CMPL	CX, $0xffffffff
	JNE	bad

	// Plane j of the cells (bit j of each value) as band words, broadcast;
	// digit d's band words ANDed up from them.
#define PLANE(shift, k, first) \
	VPSLLW	$(shift), Y0, Y6; \
	VPMOVMSKB	Y6, R8; \
	VPSLLW	$(shift), Y1, Y6; \
	VPMOVMSKB	Y6, R9; \
	VPSLLW	$(shift), Y2, Y6; \
	VPMOVMSKB	Y6, R10; \
	SHLQ	$32, R9; \
	ORQ	R8, R9; \
	MOVL	R9, R8; \
	ANDL	$0x7ffffff, R8; \
	SHRQ	$27, R9; \
	ANDL	$0x7ffffff, R9; \
	SHRL	$5, R10; \
	VMOVD	R8, X6; \
	VPBROADCASTD	X6, Y6; \
	VPXOR	k, Y6, Y6; \
	first(Y6, Y11); \
	VMOVD	R9, X6; \
	VPBROADCASTD	X6, Y6; \
	VPXOR	k, Y6, Y6; \
	first(Y6, Y12); \
	VMOVD	R10, X6; \
	VPBROADCASTD	X6, Y6; \
	VPXOR	k, Y6, Y6; \
	first(Y6, Y13)
#define SET(x, w) VMOVDQA x, w
#define AND(x, w) VPAND x, w, w
	PLANE(7, checkDigitBits0<>(SB), SET)
	PLANE(6, checkDigitBits1<>(SB), AND)
	PLANE(5, checkDigitBits2<>(SB), AND)
	PLANE(4, checkDigitBits3<>(SB), AND)
#undef PLANE
#undef SET
#undef AND

	// The units of digits 1-8, band by band: errors into Y14, columns
	// into Y15.
	VPXOR	Y14, Y14, Y14
	VPXOR	Y15, Y15, Y15
	VMOVDQU	checkFieldLow<>(SB), Y9
	VMOVDQU	checkFieldHigh<>(SB), Y10
#define BAND(w) \
	VPAND	Y9, w, Y6; \
	VPADDD	Y9, Y6, Y6; \
	VPOR	w, Y6, Y6; \
	VPAND	Y10, Y6, Y6; \
	VPXOR	Y10, Y6, Y6; \
	VPOR	Y6, Y14, Y14; \
	VPSUBD	checkFieldOne<>(SB), w, Y6; \
	VPAND	w, Y6, Y6; \
	VPOR	Y6, Y14, Y14; \
	VPSRLD	$9, w, Y6; \
	VPSRLD	$18, w, Y7; \
	VPOR	Y7, Y6, Y6; \
	VPOR	w, Y6, Y6; \
	VPAND	checkLow9<>(SB), Y6, Y6; \
	VPOR	Y6, Y15, Y15; \
	VPSRLD	$1, Y6, Y7; \
	VPSRLD	$2, Y6, Y8; \
	VPOR	Y7, Y6, Y6; \
	VPOR	Y8, Y6, Y6; \
	VPAND	checkBoxBits<>(SB), Y6, Y6; \
	VPXOR	checkBoxBits<>(SB), Y6, Y6; \
	VPOR	Y6, Y14, Y14
	BAND(Y11)
	BAND(Y12)
	BAND(Y13)
#undef BAND
	VPXOR	checkLow9<>(SB), Y15, Y15
	VPOR	Y15, Y14, Y14
	VPTEST	Y14, Y14
	JNZ	bad
	VZEROUPPER
	MOVB	$1, ret+16(FP)
	RET
bad:
	VZEROUPPER
	MOVB	$0, ret+16(FP)
	RET

// checkDigitBitsJ, lane d-1: zero if digit d has bit j, else all ones
// (the plane's complement).
DATA checkDigitBits0<>+0(SB)/4, $0x0
DATA checkDigitBits0<>+4(SB)/4, $0xffffffff
DATA checkDigitBits0<>+8(SB)/4, $0x0
DATA checkDigitBits0<>+12(SB)/4, $0xffffffff
DATA checkDigitBits0<>+16(SB)/4, $0x0
DATA checkDigitBits0<>+20(SB)/4, $0xffffffff
DATA checkDigitBits0<>+24(SB)/4, $0x0
DATA checkDigitBits0<>+28(SB)/4, $0xffffffff
GLOBL checkDigitBits0<>(SB), RODATA|NOPTR, $32
DATA checkDigitBits1<>+0(SB)/4, $0xffffffff
DATA checkDigitBits1<>+4(SB)/4, $0x0
DATA checkDigitBits1<>+8(SB)/4, $0x0
DATA checkDigitBits1<>+12(SB)/4, $0xffffffff
DATA checkDigitBits1<>+16(SB)/4, $0xffffffff
DATA checkDigitBits1<>+20(SB)/4, $0x0
DATA checkDigitBits1<>+24(SB)/4, $0x0
DATA checkDigitBits1<>+28(SB)/4, $0xffffffff
GLOBL checkDigitBits1<>(SB), RODATA|NOPTR, $32
DATA checkDigitBits2<>+0(SB)/4, $0xffffffff
DATA checkDigitBits2<>+4(SB)/4, $0xffffffff
DATA checkDigitBits2<>+8(SB)/4, $0xffffffff
DATA checkDigitBits2<>+12(SB)/4, $0x0
DATA checkDigitBits2<>+16(SB)/4, $0x0
DATA checkDigitBits2<>+20(SB)/4, $0x0
DATA checkDigitBits2<>+24(SB)/4, $0x0
DATA checkDigitBits2<>+28(SB)/4, $0xffffffff
GLOBL checkDigitBits2<>(SB), RODATA|NOPTR, $32
DATA checkDigitBits3<>+0(SB)/4, $0xffffffff
DATA checkDigitBits3<>+4(SB)/4, $0xffffffff
DATA checkDigitBits3<>+8(SB)/4, $0xffffffff
DATA checkDigitBits3<>+12(SB)/4, $0xffffffff
DATA checkDigitBits3<>+16(SB)/4, $0xffffffff
DATA checkDigitBits3<>+20(SB)/4, $0xffffffff
DATA checkDigitBits3<>+24(SB)/4, $0xffffffff
DATA checkDigitBits3<>+28(SB)/4, $0x0
GLOBL checkDigitBits3<>(SB), RODATA|NOPTR, $32
DATA checkOnes<>+0(SB)/4, $0x1010101
DATA checkOnes<>+4(SB)/4, $0x1010101
DATA checkOnes<>+8(SB)/4, $0x1010101
DATA checkOnes<>+12(SB)/4, $0x1010101
DATA checkOnes<>+16(SB)/4, $0x1010101
DATA checkOnes<>+20(SB)/4, $0x1010101
DATA checkOnes<>+24(SB)/4, $0x1010101
DATA checkOnes<>+28(SB)/4, $0x1010101
GLOBL checkOnes<>(SB), RODATA|NOPTR, $32
DATA checkEights<>+0(SB)/4, $0x8080808
DATA checkEights<>+4(SB)/4, $0x8080808
DATA checkEights<>+8(SB)/4, $0x8080808
DATA checkEights<>+12(SB)/4, $0x8080808
DATA checkEights<>+16(SB)/4, $0x8080808
DATA checkEights<>+20(SB)/4, $0x8080808
DATA checkEights<>+24(SB)/4, $0x8080808
DATA checkEights<>+28(SB)/4, $0x8080808
GLOBL checkEights<>(SB), RODATA|NOPTR, $32
// A band word's three rows as 9-bit fields: their low 8 bits, their bit
// 8, their bit 0; its columns; bit 0 of each box's three columns.
DATA checkFieldLow<>+0(SB)/4, $0x3fdfeff
DATA checkFieldLow<>+4(SB)/4, $0x3fdfeff
DATA checkFieldLow<>+8(SB)/4, $0x3fdfeff
DATA checkFieldLow<>+12(SB)/4, $0x3fdfeff
DATA checkFieldLow<>+16(SB)/4, $0x3fdfeff
DATA checkFieldLow<>+20(SB)/4, $0x3fdfeff
DATA checkFieldLow<>+24(SB)/4, $0x3fdfeff
DATA checkFieldLow<>+28(SB)/4, $0x3fdfeff
GLOBL checkFieldLow<>(SB), RODATA|NOPTR, $32
DATA checkFieldHigh<>+0(SB)/4, $0x4020100
DATA checkFieldHigh<>+4(SB)/4, $0x4020100
DATA checkFieldHigh<>+8(SB)/4, $0x4020100
DATA checkFieldHigh<>+12(SB)/4, $0x4020100
DATA checkFieldHigh<>+16(SB)/4, $0x4020100
DATA checkFieldHigh<>+20(SB)/4, $0x4020100
DATA checkFieldHigh<>+24(SB)/4, $0x4020100
DATA checkFieldHigh<>+28(SB)/4, $0x4020100
GLOBL checkFieldHigh<>(SB), RODATA|NOPTR, $32
DATA checkFieldOne<>+0(SB)/4, $0x40201
DATA checkFieldOne<>+4(SB)/4, $0x40201
DATA checkFieldOne<>+8(SB)/4, $0x40201
DATA checkFieldOne<>+12(SB)/4, $0x40201
DATA checkFieldOne<>+16(SB)/4, $0x40201
DATA checkFieldOne<>+20(SB)/4, $0x40201
DATA checkFieldOne<>+24(SB)/4, $0x40201
DATA checkFieldOne<>+28(SB)/4, $0x40201
GLOBL checkFieldOne<>(SB), RODATA|NOPTR, $32
DATA checkLow9<>+0(SB)/4, $0x1ff
DATA checkLow9<>+4(SB)/4, $0x1ff
DATA checkLow9<>+8(SB)/4, $0x1ff
DATA checkLow9<>+12(SB)/4, $0x1ff
DATA checkLow9<>+16(SB)/4, $0x1ff
DATA checkLow9<>+20(SB)/4, $0x1ff
DATA checkLow9<>+24(SB)/4, $0x1ff
DATA checkLow9<>+28(SB)/4, $0x1ff
GLOBL checkLow9<>(SB), RODATA|NOPTR, $32
DATA checkBoxBits<>+0(SB)/4, $0x49
DATA checkBoxBits<>+4(SB)/4, $0x49
DATA checkBoxBits<>+8(SB)/4, $0x49
DATA checkBoxBits<>+12(SB)/4, $0x49
DATA checkBoxBits<>+16(SB)/4, $0x49
DATA checkBoxBits<>+20(SB)/4, $0x49
DATA checkBoxBits<>+24(SB)/4, $0x49
DATA checkBoxBits<>+28(SB)/4, $0x49
GLOBL checkBoxBits<>(SB), RODATA|NOPTR, $32
