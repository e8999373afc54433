// The body of placeGivens and placeGivensNoPEXT (bandasm_amd64.s), which
// defines GIVENS, the function's name, and the macros GATHER9 (AX's bits
// 3k to bits k, the rest of AX cleared) and SPREAD9R8 (R8's bit k to bit
// 3k, R8 below 512), with PEXT and PDEP or without them; R13 holds
// 0x1249249 for them, R9 is free where SPREAD9R8 runs.

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
	MOVL	$0x1249249, R13
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
	RORXL	$1, g, AX; \
	RORXL	$2, g, BX; \
	ORL	g, AX; \
	ORL	BX, AX; \
	GATHER9; \
	MOVQ	(R14)(AX*8), AX; \
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
	MOVL	R8, AX
	SHRL	$9, AX
	IMUL3L	$0x1249249, AX, AX
	NOTL	R8
	ANDL	$0x1FF, R8
	SPREAD9R8
	IMUL3L	$7, R8, R8
	ORL	AX, R8
	ORL	R8, state_todo(DI)
	MOVB	$1, ret+16(FP)
	RET
givensFail:
	MOVB	$0, ret+16(FP)
	RET
