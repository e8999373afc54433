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
