// The body of propagateAsm and propagateAsmNoPEXT (bandasm_amd64.s), which
// defines PROPAGATE, the function's name, and the macros COMPRESS3 (bit 3k
// of a register to bit k), SPREAD3 (bit k to bit 3k) and STACK(s) (the
// stack permutations of stack s in the column loop) with PEXT and PDEP
// or without them.

TEXT PROPAGATE(SB), NOSPLIT, $232-9
	MOVQ	st+0(FP), DI
	MOVL	state_todo(DI), R8
	XORL	R9, R9

top:
	// Drop from todo the words equal to prev (marked by the Go code or
	// by PLACE though unchanged), eight words at a time: from here on
	// todo holds only words that changed.
#define EQ8(off, x) \
	MOVOU	(state_f+off)(DI), x; \
	MOVOU	(state_prev+off)(DI), X4; \
	PCMPEQL	X4, x; \
	MOVOU	(state_f+off+16)(DI), X5; \
	MOVOU	(state_prev+off+16)(DI), X4; \
	PCMPEQL	X4, X5; \
	PACKSSLW	X5, x
	EQ8(0, X0)
	EQ8(32, X1)
	PACKSSWB	X1, X0
	PMOVMSKB	X0, AX
	EQ8(64, X2)
	EQ8(96, X3)
	PACKSSWB	X3, X2
	PMOVMSKB	X2, BX
#undef EQ8
	SHLL	$16, BX
	ORL	BX, AX
	ANDNL	R8, AX, R8

loop:
	TESTL	R8, R8
	JZ	done
	TZCNTL	R8, SI
	BLSRL	R8, R8
	MOVL	state_f(DI)(SI*4), R10

	// p = PEXT(w|w>>1|w>>2, 0x1249249): bit 3r+x, row r has a cell in box x.
	// (Rotated rather than shifted: the bits that come round land above
	// the 27 of the band, outside the mask.)
	RORXL	$1, R10, AX
	RORXL	$2, R10, BX
	ORL	AX, BX
	ORL	R10, BX
	COMPRESS3(BX)
	LEAQ	·complexMask(SB), AX
	ANDL	(AX)(BX*4), R10
	JZ	bandFail
	MOVL	R10, state_f(DI)(SI*4)
	MOVL	R10, state_prev(DI)(SI*4)

	// b = i mod 3, 3d = i-b.
	BTSL	SI, R9
	LEAQ	·bandOf(SB), AX
	MOVBLZX	(AX)(SI*1), R12
	MOVL	SI, R14
	SUBL	R12, R14

	// Rows reduced to one cell: x if BLSR(x) is zero.
	XORL	CX, CX
	MOVL	R10, AX
	ANDL	$0x1FF, AX
	BLSRL	AX, BX
	CMOVLNE	CX, AX
	MOVL	AX, R11
	MOVL	R10, AX
	ANDL	$(0x1FF<<9), AX
	BLSRL	AX, BX
	CMOVLNE	CX, AX
	ORL	AX, R11
	MOVL	R10, AX
	ANDL	$(0x1FF<<18), AX
	BLSRL	AX, BX
	CMOVLNE	CX, AX
	ORL	AX, R11
	ANDL	state_unsolved(DI)(R12*4), R11
	JZ	loop

place:
	// Every single of the word at once (R11: at most one cell a row, in
	// three different boxes and columns, as the word passed complexMask),
	// as place does them one by one: the clears commute, and the word
	// itself is restored below.
	MOVL	state_unsolved(DI)(R12*4), AX
	ANDNL	AX, R11, AX
	MOVL	AX, state_unsolved(DI)(R12*4)

	// The band's nine words f[3k+b], k = 8 down to 0, so that bit k of
	// CX tells whether word k had any of the cells.
	XORL	CX, CX
#define SWEEP(off) \
	MOVL	(state_f+off)(DI)(R12*4), AX; \
	ANDNL	AX, R11, BX; \
	CMPL	BX, AX; \
	ADCL	CX, CX; \
	MOVL	BX, (state_f+off)(DI)(R12*4)
	SWEEP(96)
	SWEEP(84)
	SWEEP(72)
	SWEEP(60)
	SWEEP(48)
	SWEEP(36)
	SWEEP(24)
	SWEEP(12)
	SWEEP(0)
#undef SWEEP
	SPREAD3(CX)
	SHLXL	R12, CX, CX
	ORL	CX, R8

	// The cells' columns in the digit's three words f[3d+k], k = 2 down
	// to 0 (word i is restored below): the columns c of the cells,
	// times 1 + 2^9 + 2^18.
	MOVL	R11, AX
	SHRL	$9, AX
	MOVL	R11, DX
	ORL	AX, DX
	SHRL	$9, AX
	ORL	AX, DX
	ANDL	$0x1FF, DX
	IMULL	$0x40201, DX
	XORL	CX, CX
#define COLUMN(off) \
	ANDNL	(state_f+off)(DI)(R14*4), DX, AX; \
	CMPL	AX, (state_f+off)(DI)(R14*4); \
	ADCL	CX, CX; \
	MOVL	AX, (state_f+off)(DI)(R14*4)
	COLUMN(8)
	COLUMN(4)
	COLUMN(0)
#undef COLUMN
	SHLXL	R14, CX, CX
	ORL	CX, R8
	BTRL	SI, R8
	MOVL	R10, state_f(DI)(SI*4)
	JMP	loop

done:
	// colDirty gets the digits of the words updated: PEXT of the words'
	// bits ORed three by three.
	RORXL	$1, R9, AX
	RORXL	$2, R9, BX
	ORL	AX, BX
	ORL	R9, BX
	COMPRESS3(BX)
	ORL	BX, state_colDirty(DI)
	XORL	R9, R9
	MOVL	state_unsolved(DI), AX
	ORL	(state_unsolved+4)(DI), AX
	ORL	(state_unsolved+8)(DI), AX
	JZ	success

	// PLACE fills cell pos (R13) of band b (R12) with the digit of word i
	// (SI), whose first word is 3d (R14), as place does. Clobbers AX, BX
	// and DX.
#define PLACE \
	MOVL	state_unsolved(DI)(R12*4), AX; \
	BTRL	R13, AX; \
	MOVL	AX, state_unsolved(DI)(R12*4); \
	LEAQ	·bandPeers(SB), AX; \
	MOVL	(AX)(R13*4), BX; \
	ANDL	state_f(DI)(SI*4), BX; \
	XORL	AX, AX; \
	BTSL	R13, AX; \
	NOTL	AX; \
	ANDL	AX, (state_f+0)(DI)(R12*4); \
	ANDL	AX, (state_f+12)(DI)(R12*4); \
	ANDL	AX, (state_f+24)(DI)(R12*4); \
	ANDL	AX, (state_f+36)(DI)(R12*4); \
	ANDL	AX, (state_f+48)(DI)(R12*4); \
	ANDL	AX, (state_f+60)(DI)(R12*4); \
	ANDL	AX, (state_f+72)(DI)(R12*4); \
	ANDL	AX, (state_f+84)(DI)(R12*4); \
	ANDL	AX, (state_f+96)(DI)(R12*4); \
	LEAQ	·colAt(SB), AX; \
	MOVL	(AX)(R13*4), DX; \
	NOTL	DX; \
	ANDL	DX, (state_f+0)(DI)(R14*4); \
	ANDL	DX, (state_f+4)(DI)(R14*4); \
	ANDL	DX, (state_f+8)(DI)(R14*4); \
	MOVL	BX, state_f(DI)(SI*4); \
	LEAQ	·placeTodo(SB), AX; \
	ORL	(AX)(SI*4), R8

	// Naked singles, band by band: ones and twos count the cells with at
	// least one and at least two candidates.
	XORL	R11, R11
	XORL	R12, R12
nakedBand:
	MOVL	state_unsolved(DI)(R12*4), BX
	TESTL	BX, BX
	JZ	nakedNext
	MOVL	(state_f+0)(DI)(R12*4), AX
	XORL	CX, CX
#define COUNT(off) \
	MOVL	(state_f+off)(DI)(R12*4), DX; \
	MOVL	DX, R10; \
	ANDL	AX, R10; \
	ORL	R10, CX; \
	ORL	DX, AX
	COUNT(12)
	COUNT(24)
	COUNT(36)
	COUNT(48)
	COUNT(60)
	COUNT(72)
	COUNT(84)
	COUNT(96)
#undef COUNT
	ANDNL	BX, AX, R10
	JNZ	fail
	ANDNL	BX, CX, R10
	JZ	nakedNext
nakedSingle:
	TZCNTL	R10, R13
	BLSRL	R10, R10
	// The cell's digits, bit k for digit k (words 3k+b, k = 8 down to 0).
	XORL	CX, CX
#define DIGIT(off) \
	MOVL	(state_f+off)(DI)(R12*4), AX; \
	BTL	R13, AX; \
	ADCL	CX, CX
	DIGIT(96)
	DIGIT(84)
	DIGIT(72)
	DIGIT(60)
	DIGIT(48)
	DIGIT(36)
	DIGIT(24)
	DIGIT(12)
	DIGIT(0)
#undef DIGIT
	TZCNTL	CX, AX
	JCS	fail // emptied by an earlier single of this loop
	LEAL	(AX)(AX*2), R14
	LEAL	(R14)(R12*1), SI
	PLACE
	MOVL	$1, R11
	TESTL	R10, R10
	JNZ	nakedSingle
nakedNext:
	INCL	R12
	CMPL	R12, $3
	JLT	nakedBand
	TESTL	R11, R11
	JNZ	top

	// Column singles, digit by digit of colDirty, or all at once in
	// AVX-512 (colVector), or digits 0-7 at once in AVX2 (colVector2)
	// and digit 8 by the loop. The frame: the singles of each digit
	// (bytes 0-63) and its columns with a place (64-127) for the loop
	// to place, colVector2's band words (128-223), whether the loop
	// takes its digits from those singles (224: colVectorNext), and
	// the digits left to the loop once they are done (228).
	MOVL	state_colDirty(DI), R9
	TESTL	R9, R9
	JZ	success
	MOVB	$0, 224(SP)
	MOVL	$0, 228(SP)
	CMPB	·useColAVX512(SB), $0
	JNE	colVector
	CMPB	·useColAVX2(SB), $0
	JNE	colVector2
colDigit:
	TZCNTL	R9, AX
	LEAL	(AX)(AX*2), R14
	// R10 = a0 | a1<<9 | a2<<18, ab the columns of band b with a place.
#define COLS(off, shift) \
	MOVL	(state_f+off)(DI)(R14*4), AX; \
	MOVL	AX, BX; \
	SHRL	$9, BX; \
	ORL	BX, AX; \
	SHRL	$9, BX; \
	ORL	BX, AX; \
	ANDL	$0x1FF, AX; \
	SHLL	$shift, AX; \
	ORL	AX, R10
	XORL	R10, R10
	COLS(0, 0)
	COLS(4, 9)
	COLS(8, 18)
#undef COLS
	MOVL	R10, AX
	SHRL	$9, AX
	ORL	R10, AX
	SHRL	$9, AX
	ORL	R10, AX
	ANDL	$0x1FF, AX
	CMPL	AX, $0x1FF
	JNE	colFail

	// The stack permutations: q = PEXT(R10, M) for stack s, M =
	// 0x1C0E07<<3s (bit 3b+j: band b, column j of the stack), k =
	// allowed9[q], and PDEP(k, M) the mini-columns allowed, gathered in
	// BX.
	LEAQ	·allowed9(SB), DX
	XORL	BX, BX
	STACK(0)
	STACK(1)
	STACK(2)
	ANDNL	R10, BX, AX // the mini-columns to clear
	JZ	colSingles
	ANDL	BX, R10
	MOVL	$7, BX
	SHLXL	R14, BX, BX
	ORL	BX, R8
	MOVL	$1, R11
#define CLEAR(off) \
	MOVL	AX, BX; \
	ANDL	$0x1FF, BX; \
	IMULL	$0x40201, BX; \
	ANDNL	(state_f+off)(DI)(R14*4), BX, BX; \
	MOVL	BX, (state_f+off)(DI)(R14*4); \
	SHRL	$9, AX
	CLEAR(0)
	CLEAR(4)
	CLEAR(8)
#undef CLEAR

colSingles:
	// Columns with one place in all (counted over the nine rows), leaving
	// out those the digit already fills (in BX).
	MOVL	(state_f+0)(DI)(R14*4), AX
	MOVL	state_unsolved(DI), BX
	ANDNL	AX, BX, BX
	MOVL	AX, DX
	ANDL	$0x1FF, DX // ones
	XORL	CX, CX     // twos
#define COUNT(r) \
	MOVL	r, SI; \
	ANDL	DX, SI; \
	ORL	SI, CX; \
	ORL	r, DX
#define ROWS \
	SHRL	$9, AX; \
	COUNT(AX); \
	SHRL	$9, AX; \
	COUNT(AX)
	ROWS
	// Bands 1 and 2 (off 4 and 8): their filled cells into BX, their
	// three rows counted.
#define BAND(off) \
	MOVL	(state_f+off)(DI)(R14*4), AX; \
	MOVL	(state_unsolved+off)(DI), SI; \
	ANDNL	AX, SI, SI; \
	ORL	SI, BX; \
	COUNT(AX); \
	ROWS
	BAND(4)
	BAND(8)
#undef BAND
#undef ROWS
#undef COUNT
	ANDNL	DX, CX, CX
	MOVL	BX, AX
	SHRL	$9, AX
	ORL	AX, BX
	SHRL	$9, AX
	ORL	AX, BX
	ANDNL	CX, BX, CX
	ANDL	$0x1FF, CX
	JZ	colNext
colSingle:
	TZCNTL	CX, R13
	BLSRL	CX, CX
	// b = 1 if band 1 has a place in column c, else 2 if band 2 has,
	// else 0.
	LEAL	9(R13), AX
	BTL	AX, R10
	SBBL	BX, BX
	ANDL	$1, BX
	LEAL	18(R13), AX
	BTL	AX, R10
	SBBL	AX, AX
	ANDL	$2, AX
	TESTL	BX, BX
	CMOVLEQ	AX, BX
	MOVL	BX, R12
	LEAL	(R14)(R12*1), SI
	LEAQ	·colAt(SB), AX
	MOVL	(AX)(R13*4), AX
	ANDL	state_f(DI)(SI*4), AX
	JZ	colFail // cleared by a placement of this loop
	TESTL	state_unsolved(DI)(R12*4), AX
	JZ	colSkip
	TZCNTL	AX, R13
	PLACE
	MOVL	$1, R11
colSkip:
	TESTL	CX, CX
	JNZ	colSingle
colNext:
	BLSRL	R9, R9
	JZ	colSetDone
	CMPB	224(SP), $0
	JNE	colVectorNext
	JMP	colDigit
colSetDone:
	// The digits left to the loop, if any.
	MOVB	$0, 224(SP)
	MOVL	228(SP), R9
	MOVL	$0, 228(SP)
	TESTL	R9, R9
	JNZ	colDigit
colDone:
	MOVL	R9, state_colDirty(DI)
	TESTL	R11, R11
	JNZ	top
success:
	MOVL	R8, state_todo(DI)
	MOVB	$1, ret+8(FP)
	RET

bandFail:
	// colDirty gets the digits of the words updated, as at done.
	RORXL	$1, R9, AX
	RORXL	$2, R9, BX
	ORL	AX, BX
	ORL	R9, BX
	COMPRESS3(BX)
	ORL	BX, state_colDirty(DI)
	JMP	fail

colVector:
	// The column pass of every digit of colDirty at once, digit d in
	// lane d of 512-bit vectors: W0-W2 (Z2-Z4) its band words, A_b its
	// columns with a place in band b (Z5-Z7). As the loop above: fail if
	// a column has no place; the stack permutations (a mini-column
	// (b, j) of a stack is allowed when band b has a place in column j
	// and the other two bands have places in the other two columns, one
	// each: N1(X) and N2(X), X's bits rotated within each stack so that
	// bit j holds column j+1 or j+2 of the stack, pair them), clearing
	// the mini-columns outside them; then the columns with one place
	// left. The clears are written back (VPSCATTERDD) before any
	// placement; the placements are then made digit by digit by the
	// loop above (colSingle), which reads the state as each leaves it:
	// a single whose cell another digit's placement took fails there,
	// as it would in the loop (found from the state before, a single is
	// still the column's only place if its cell is still a candidate).
	// The fixed point is the same as the loop's, and so is the state
	// that propagate returns; on a contradiction it may differ (the
	// search drops it).
	KMOVW	R9, K1
	VMOVDQU32	state_f(DI), Z0
	VMOVDQU32	(state_f+64)(DI), Z1
	LANEWORDS
#define COLSOF(w, a) \
	VPSRLD	$9, w, a; \
	VPSRLD	$18, w, Z8; \
	VPTERNLOGD	$0xfe, Z8, w, a; \
	VPANDD.BCST	colLow9<>(SB), a, a
	COLSOF(Z2, Z5)
	COLSOF(Z3, Z6)
	COLSOF(Z4, Z7)
#undef COLSOF
	VMOVDQA32	Z5, Z8
	VPTERNLOGD	$0xfe, Z7, Z6, Z8
	VPCMPUD.BCST	$4, colLow9<>(SB), Z8, K1, K2
	KORTESTW	K2, K2
	JNZ	colVectorFail

	// N1 (bit j from j+1) and N2 (bit j from j+2) of A0-A2, in Z8-Z13.
#define N1(a, r) \
	VPSLLD	$2, a, r; \
	VPSRLD	$1, a, Z14; \
	VPTERNLOGD.BCST	$0xd8, colN1<>(SB), Z14, r
#define N2(a, r) \
	VPSRLD	$2, a, r; \
	VPSLLD	$1, a, Z14; \
	VPTERNLOGD.BCST	$0xd8, colN2<>(SB), Z14, r
	N1(Z5, Z8)
	N2(Z5, Z9)
	N1(Z6, Z10)
	N2(Z6, Z11)
	N1(Z7, Z12)
	N2(Z7, Z13)
#undef N1
#undef N2
	// The allowed mini-columns: band 0 in Z0, 1 in Z1, 2 in Z14, each
	// A_b & (N1(A_b1)&N2(A_b2) | N2(A_b1)&N1(A_b2)) (imm 0xa8: C & (A|B)).
#define ALLOWED(n1a, n2b, n2a, n1b, a, r) \
	VPANDD	n1a, n2b, r; \
	VPANDD	n2a, n1b, Z15; \
	VPTERNLOGD	$0xa8, a, Z15, r
	ALLOWED(Z10, Z13, Z11, Z12, Z5, Z0)
	ALLOWED(Z8, Z13, Z9, Z12, Z6, Z1)
	ALLOWED(Z8, Z11, Z9, Z10, Z7, Z14)
#undef ALLOWED
	// A stack without a permutation allows none of band 0's
	// mini-columns in it.
	VPSRLD	$1, Z0, Z8
	VPSRLD	$2, Z0, Z9
	VPTERNLOGD	$0xfe, Z9, Z0, Z8
	VPANDD.BCST	colStacks<>(SB), Z8, Z8
	VPCMPUD.BCST	$4, colStacks<>(SB), Z8, K1, K2
	KORTESTW	K2, K2
	JNZ	colVectorFail

	// The mini-columns to clear, A_b &^ allowed_b (imm 0x30: A &^ B), in
	// Z5-Z7; the digits with any in K3.
	VPTERNLOGD	$0x30, Z0, Z0, Z5
	VPTERNLOGD	$0x30, Z1, Z1, Z6
	VPTERNLOGD	$0x30, Z14, Z14, Z7
	VMOVDQA32	Z5, Z8
	VPTERNLOGD	$0xfe, Z7, Z6, Z8
	VPTESTMD	Z8, Z8, K1, K3
	KORTESTW	K3, K3
	JZ	colVectorSingles
	// W_b &^= the cleared columns in its three rows, written back; the
	// digits' three words go to todo, and progress is made.
#define CLEARW(x, w, idx) \
	VPSLLD	$9, x, Z8; \
	VPSLLD	$18, x, Z9; \
	VPTERNLOGD	$0xfe, Z9, Z8, x; \
	VPANDND	w, x, w; \
	VMOVDQU32	idx(SB), Z8; \
	KMOVW	K3, K4; \
	VPSCATTERDD	w, K4, state_f(DI)(Z8*4)
	CLEARW(Z5, Z2, ·laneWords0)
	CLEARW(Z6, Z3, ·laneWords1)
	CLEARW(Z7, Z4, ·laneWords2)
#undef CLEARW
	KMOVW	K3, CX
	SPREAD3(CX)
	IMUL3L	$7, CX, CX
	ORL	CX, R8
	MOVL	$1, R11

colVectorSingles:
	// Columns with one place in all: ones and twos over the nine rows
	// (within a band the majority of its three rows, imm 0xe8), less the
	// columns the digit fills.
#define TWOS(w, t) \
	VPSRLD	$9, w, t; \
	VPSRLD	$18, w, Z8; \
	VPTERNLOGD	$0xe8, Z8, w, t
	TWOS(Z2, Z5)
	TWOS(Z3, Z6)
	TWOS(Z4, Z7)
#undef TWOS
	VPTERNLOGD	$0xfe, Z7, Z6, Z5
	VMOVDQA32	Z0, Z6
	VPTERNLOGD	$0xe8, Z14, Z1, Z6
	VPORD	Z6, Z5, Z5 // twos
	VMOVDQA32	Z0, Z7
	VPTERNLOGD	$0xfe, Z14, Z1, Z7 // ones
#define FILLED(w, off, r) \
	VPBROADCASTD	(state_unsolved+off)(DI), r; \
	VPANDND	w, r, r
	FILLED(Z2, 0, Z8)
	FILLED(Z3, 4, Z9)
	FILLED(Z4, 8, Z10)
#undef FILLED
	VPTERNLOGD	$0xfe, Z10, Z9, Z8
	VPSRLD	$9, Z8, Z9
	VPSRLD	$18, Z8, Z10
	VPTERNLOGD	$0xfe, Z10, Z9, Z8
	// one = ones &^ twos &^ filled (imm 0x10: A &^ B &^ C).
	VPTERNLOGD	$0x10, Z8, Z5, Z7
	VPTESTMD	Z7, Z7, K1, K3
	KMOVW	K3, R9
	TESTL	R9, R9
	JZ	colVectorEnd
	// For the loop: the singles (bits 0-8) and the columns with a place,
	// band by band (bit 9b+c), of each digit, in the frame.
	VMOVDQU32	Z7, 0(SP)
	VPSLLD	$9, Z1, Z1
	VPSLLD	$18, Z14, Z14
	VPTERNLOGD	$0xfe, Z14, Z1, Z0
	VMOVDQU32	Z0, 64(SP)
	VZEROUPPER
	MOVB	$1, 224(SP)
colVectorNext:
	TZCNTL	R9, AX
	MOVL	0(SP)(AX*4), CX
	MOVL	64(SP)(AX*4), R10
	LEAL	(AX)(AX*2), R14
	JMP	colSingle
colVectorEnd:
	VZEROUPPER
	JMP	colSetDone

colVector2:
	// colVector in AVX2 for digits 0-7 of colDirty, digit d in lane d
	// of 256-bit vectors (Y3-Y5 its band words, Y6-Y8 its columns with
	// a place, Y15 all ones in the lanes of the digits to take); digit
	// 8 is left to the loop. Without a ternary logic instruction, N1 and
	// N2 are two masked shifts ORed; without scatter, the words cleared
	// are written back from the frame one by one (9 in 10 passes clear
	// nothing). The band words come from f by three VPERMDs and two
	// blends a band.
	MOVL	R9, AX
	ANDL	$0x100, AX
	MOVL	AX, 228(SP)
	ANDL	$0xFF, R9
	JZ	colSetDone
	VMOVD	R9, X15
	VPBROADCASTD	X15, Y15
	VMOVDQU	col2Lanes<>(SB), Y14
	VPAND	Y14, Y15, Y15
	VPCMPEQD	Y14, Y15, Y15
	VMOVDQU	(state_f+0)(DI), Y0
	VMOVDQU	(state_f+32)(DI), Y1
	VMOVDQU	(state_f+64)(DI), Y2
#define WORDS(idx, imm1, imm2, w) \
	VMOVDQU	idx<>(SB), Y14; \
	VPERMD	Y0, Y14, w; \
	VPERMD	Y1, Y14, Y13; \
	VPBLENDD	$imm1, Y13, w, w; \
	VPERMD	Y2, Y14, Y13; \
	VPBLENDD	$imm2, Y13, w, w; \
	VPAND	Y15, w, w
	WORDS(col2Words0, 0x38, 0xc0, Y3)
	WORDS(col2Words1, 0x18, 0xe0, Y4)
	WORDS(col2Words2, 0x1c, 0xe0, Y5)
#undef WORDS
#define COLSOF(w, a) \
	VPSRLD	$9, w, a; \
	VPSRLD	$18, w, Y13; \
	VPOR	w, a, a; \
	VPOR	Y13, a, a; \
	VPAND	col2Low9<>(SB), a, a
	COLSOF(Y3, Y6)
	COLSOF(Y4, Y7)
	COLSOF(Y5, Y8)
#undef COLSOF
	VPOR	Y6, Y7, Y9
	VPOR	Y8, Y9, Y9
	VPCMPEQD	col2Low9<>(SB), Y9, Y9
	VPANDN	Y15, Y9, Y9
	VPMOVMSKB	Y9, AX
	TESTL	AX, AX
	JNZ	colVectorFail

	// N1 (bit j from j+1) and N2 (bit j from j+2) of A0-A2 in Y9-Y14.
#define N1(a, r) \
	VPSRLD	$1, a, Y0; \
	VPAND	col2N1r<>(SB), Y0, Y0; \
	VPSLLD	$2, a, r; \
	VPAND	col2N1l<>(SB), r, r; \
	VPOR	Y0, r, r
#define N2(a, r) \
	VPSLLD	$1, a, Y0; \
	VPAND	col2N2l<>(SB), Y0, Y0; \
	VPSRLD	$2, a, r; \
	VPAND	col2Stacks<>(SB), r, r; \
	VPOR	Y0, r, r
	N1(Y6, Y9)
	N2(Y6, Y10)
	N1(Y7, Y11)
	N2(Y7, Y12)
	N1(Y8, Y13)
	N2(Y8, Y14)
#undef N1
#undef N2
	// The allowed mini-columns of bands 0-2 in Y0-Y2.
#define ALLOWED(n1a, n2b, n2a, n1b, a, r, t) \
	VPAND	n1a, n2b, r; \
	VPAND	n2a, n1b, t; \
	VPOR	t, r, r; \
	VPAND	a, r, r
	ALLOWED(Y11, Y14, Y12, Y13, Y6, Y0, Y1)
	ALLOWED(Y9, Y14, Y10, Y13, Y7, Y1, Y2)
	ALLOWED(Y9, Y12, Y10, Y11, Y8, Y2, Y14)
#undef ALLOWED
	VPSRLD	$1, Y0, Y9
	VPSRLD	$2, Y0, Y10
	VPOR	Y0, Y9, Y9
	VPOR	Y10, Y9, Y9
	VPAND	col2Stacks<>(SB), Y9, Y9
	VPCMPEQD	col2Stacks<>(SB), Y9, Y9
	VPANDN	Y15, Y9, Y9
	VPMOVMSKB	Y9, AX
	TESTL	AX, AX
	JNZ	colVectorFail

	// The mini-columns to clear in Y6-Y8; the digits with any in BX.
	VPANDN	Y6, Y0, Y6
	VPANDN	Y7, Y1, Y7
	VPANDN	Y8, Y2, Y8
	VPOR	Y6, Y7, Y9
	VPOR	Y8, Y9, Y9
	VPXOR	Y10, Y10, Y10
	VPCMPEQD	Y10, Y9, Y9
	VMOVMSKPS	Y9, BX
	XORL	$0xFF, BX
	JZ	colVector2Singles
#define CLEARW(x, w, off) \
	VPSLLD	$9, x, Y9; \
	VPSLLD	$18, x, Y10; \
	VPOR	Y9, x, x; \
	VPOR	Y10, x, x; \
	VPANDN	w, x, w; \
	VMOVDQU	w, off(SP)
	CLEARW(Y6, Y3, 128)
	CLEARW(Y7, Y4, 160)
	CLEARW(Y8, Y5, 192)
#undef CLEARW
	MOVL	BX, CX
colVector2Write:
	TZCNTL	CX, AX
	BLSRL	CX, CX
	LEAL	(AX)(AX*2), DX
	MOVL	128(SP)(AX*4), SI
	MOVL	SI, (state_f+0)(DI)(DX*4)
	MOVL	160(SP)(AX*4), SI
	MOVL	SI, (state_f+4)(DI)(DX*4)
	MOVL	192(SP)(AX*4), SI
	MOVL	SI, (state_f+8)(DI)(DX*4)
	TESTL	CX, CX
	JNZ	colVector2Write
	SPREAD3(BX)
	IMUL3L	$7, BX, BX
	ORL	BX, R8
	MOVL	$1, R11

colVector2Singles:
	// twos: within a band the majority of its three rows, across the
	// bands the majority of their column sets; ones; filled.
#define TWOS(w, t) \
	VPSRLD	$9, w, t; \
	VPSRLD	$18, w, Y9; \
	VPAND	w, t, Y10; \
	VPOR	w, t, t; \
	VPAND	Y9, t, t; \
	VPOR	Y10, t, t
	TWOS(Y3, Y6)
	TWOS(Y4, Y7)
	TWOS(Y5, Y8)
#undef TWOS
	VPOR	Y6, Y7, Y6
	VPOR	Y8, Y6, Y6
	VPAND	Y0, Y1, Y10
	VPOR	Y0, Y1, Y11
	VPAND	Y2, Y11, Y11
	VPOR	Y10, Y11, Y11
	VPOR	Y11, Y6, Y6 // twos
	VPOR	Y0, Y1, Y7
	VPOR	Y2, Y7, Y7 // ones
#define FILLED(w, off, r) \
	VPBROADCASTD	(state_unsolved+off)(DI), r; \
	VPANDN	w, r, r
	FILLED(Y3, 0, Y8)
	FILLED(Y4, 4, Y9)
	FILLED(Y5, 8, Y10)
#undef FILLED
	VPOR	Y9, Y8, Y8
	VPOR	Y10, Y8, Y8
	VPSRLD	$9, Y8, Y9
	VPSRLD	$18, Y8, Y10
	VPOR	Y9, Y8, Y8
	VPOR	Y10, Y8, Y8
	VPANDN	Y7, Y6, Y7
	VPANDN	Y7, Y8, Y7 // one
	VPXOR	Y10, Y10, Y10
	VPCMPEQD	Y10, Y7, Y9
	VMOVMSKPS	Y9, R9
	XORL	$0xFF, R9
	JZ	colVectorEnd
	VMOVDQU	Y7, 0(SP)
	VPSLLD	$9, Y1, Y1
	VPSLLD	$18, Y2, Y2
	VPOR	Y1, Y0, Y0
	VPOR	Y2, Y0, Y0
	VMOVDQU	Y0, 64(SP)
	VZEROUPPER
	MOVB	$1, 224(SP)
	JMP	colVectorNext
colVectorFail:
	VZEROUPPER
colFail:
	MOVL	R9, state_colDirty(DI)
fail:
	MOVL	R8, state_todo(DI)
	MOVB	$0, ret+8(FP)
	RET
#undef PLACE
