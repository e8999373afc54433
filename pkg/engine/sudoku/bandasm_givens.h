// The body of placeGivens and placeGivensNoPEXT (bandasm_amd64.s), which
// defines GIVENS, the function's name, and the macros COMPRESS3 and
// SPREAD3 of propagateAsm's body (bandasm_propagate.h), with PEXT and PDEP
// or without them; both may clobber AX.

// func placeGivens(st *state, grid *Grid) bool
//
// The givens loop of Solve, computed in bulk rather than one placement at
// a time, on st the empty grid: placing a set of givens without conflict
// leaves, for digit d and band b (word i = 3d+b), with G the cells of the
// band holding d+1,
//
//	f[i] = unsolved[b] &^ (rows and boxes of G | columns of d's givens) | G
//	unsolved[b] = the band's cells without a given
//	todo |= the nine words of each band with a given, and the three
//	        words of each digit with a given
//
// as every placement only clears bits (the cell in the band's nine words,
// its row, box and column in its own word and its column in the digit's
// two other words) and, without a conflict, never one of another given.
// Each word is written once, with no read-modify-write of memory: placing
// the givens one by one chained the stores of each band's words from one
// given to the next, and the end of each band's loop was mispredicted.
//
// G comes from two overlapping 16-byte compares of the band with the digit
// (cells 0-15 and 11-26). The mini-rows of G (COMPRESS3 of G|G>>1|G>>2, as in
// propagateAsm) index givenPeers, which gives the cells of their rows and
// boxes, and their number plus 256 if two of them share a row or a box.
// The columns of the digit's givens, folded from the three bands, spread
// back into a band word by one multiplication.
//
// The sequential loop fails on a value above 9 or on two equal givens in a
// row, column or box. That is tested by counting, with N the number of
// givens (nonzero cells): the mini-rows of all G number N exactly when no
// value is above 9 (it would be in no G) and no mini-row holds two equal
// givens; each digit's columns number its givens exactly when no two share
// a column; the sums of both, each at most N, and the 256s of the rows and
// boxes, make 2N exactly when there is no conflict (2N is at most 162). The
// state after a failure is not the loop's (Solve discards it).
//
// Registers: DI st; X0-X5 the grid, two vectors a band; X6 the digit d+1
// in every byte, X7 all ones (-1), X8-X9 the compares; R9-R11 G of bands
// 0-2; SI the digit's columns in a band word; R12 the sum of givenPeers'
// entries (the counts in its high half); DX the digits' columns less 2N;
// R8 the bands with a given (bits 9-11) and the digits without (bits 0-8);
// R14 givenPeers; AX, BX scratch.
TEXT GIVENS(SB), NOSPLIT, $0-17
	MOVQ	st+0(FP), DI
	MOVQ	grid+8(FP), AX
	MOVOU	0(AX), X0
	MOVOU	11(AX), X1
	MOVOU	27(AX), X2
	MOVOU	38(AX), X3
	MOVOU	54(AX), X4
	MOVOU	65(AX), X5

	// Bands 2 down to 0: the empty cells are unsolved, DX = -2N counts
	// the others, and bit b of R8 says band b has a given (CF of the compare
	// with all 27 cells empty).
	PXOR	X6, X6
	XORL	DX, DX
	XORL	R8, R8
#define EMPTY(lo, hi, b) \
	MOVO	lo, X8; \
	PCMPEQB	X6, X8; \
	PMOVMSKB	X8, AX; \
	MOVO	hi, X9; \
	PCMPEQB	X6, X9; \
	PMOVMSKB	X9, BX; \
	SHLL	$11, BX; \
	ORL	AX, BX; \
	MOVL	BX, (state_unsolved+4*b)(DI); \
	POPCNTL	BX, AX; \
	LEAL	-54(DX)(AX*2), DX; \
	CMPL	BX, $0x7FFFFFF; \
	ADCL	R8, R8
	EMPTY(X4, X5, 2)
	EMPTY(X2, X3, 1)
	EMPTY(X0, X1, 0)
#undef EMPTY

	MOVL	$0x0A0A0A0A, AX
	MOVQ	AX, X6
	PSHUFD	$0, X6, X6
	PCMPEQB	X7, X7
	LEAQ	·givenPeers(SB), R14
	XORL	R12, R12

	// G, the band's cells (lo: cells 0-15, hi: 11-26) holding X6's digit.
#define GIVEN(lo, hi, g) \
	MOVO	lo, X8; \
	PCMPEQB	X6, X8; \
	PMOVMSKB	X8, AX; \
	MOVO	hi, X9; \
	PCMPEQB	X6, X9; \
	PMOVMSKB	X9, g; \
	SHLL	$11, g; \
	ORL	AX, g
	// Word off of band b, from its givens g.
#define BAND(g, off, b) \
	RORXL	$1, g, BX; \
	RORXL	$2, g, AX; \
	ORL	g, BX; \
	ORL	AX, BX; \
	COMPRESS3(BX); \
	MOVQ	(R14)(BX*8), AX; \
	ADDQ	AX, R12; \
	ORL	SI, AX; \
	ANDNL	(state_unsolved+4*b)(DI), AX, AX; \
	ORL	g, AX; \
	MOVL	AX, (state_f+off)(DI)
	// Digit d (X6 is d+2 before): its columns, as rowBits, folded from
	// the three bands (rotated: what comes round lands above bit 8).
#define DIGIT(d) \
	PADDB	X7, X6; \
	GIVEN(X0, X1, R9); \
	GIVEN(X2, X3, R10); \
	GIVEN(X4, X5, R11); \
	MOVL	R9, AX; \
	ORL	R10, AX; \
	ORL	R11, AX; \
	CMPL	AX, $1; \
	ADCL	R8, R8; \
	RORXL	$9, AX, BX; \
	ORL	BX, AX; \
	RORXL	$9, AX, BX; \
	ORL	BX, AX; \
	ANDL	$0x1FF, AX; \
	POPCNTL	AX, BX; \
	ADDL	BX, DX; \
	IMUL3L	$0x40201, AX, SI; \
	BAND(R9, 12*d, 0); \
	BAND(R10, 12*d+4, 1); \
	BAND(R11, 12*d+8, 2)
	DIGIT(8)
	DIGIT(7)
	DIGIT(6)
	DIGIT(5)
	DIGIT(4)
	DIGIT(3)
	DIGIT(2)
	DIGIT(1)
	DIGIT(0)
#undef DIGIT
#undef BAND
#undef GIVEN

	SHRQ	$32, R12
	ADDL	DX, R12
	JNZ	givensFail

	// todo: the bands' words (R8 bits 9-11 times 0x1249249) and the
	// digits' (bits 0-8 negated, spread to 3d and times 7).
	MOVL	R8, BX
	SHRL	$9, BX
	IMUL3L	$0x1249249, BX, BX
	NOTL	R8
	ANDL	$0x1FF, R8
	SPREAD3(R8)
	IMUL3L	$7, R8, R8
	ORL	BX, R8
	ORL	R8, state_todo(DI)
	MOVB	$1, ret+16(FP)
	RET
givensFail:
	MOVB	$0, ret+16(FP)
	RET
