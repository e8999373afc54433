//go:build amd64 && !purego

#include "textflag.h"

// func solutionAVX512(f *[32]uint32, grid *Grid)
//
// state.solution with AVX-512 BW: for each digit, its cells of the grid
// as bit masks (cells 0-63: f[3d] | f[3d+1]<<27 | f[3d+2]<<54; cells
// 49-80: f[3d+1]>>22 | f[3d+2]<<5) broadcast the digit into those bytes
// of two vectors, which are stored whole: 64 bytes at 0 and 32 at 49
// (the overlap holds the same bytes). About 110 instructions and two
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
