//go:build amd64 && !purego

#include "go_asm.h"
#include "textflag.h"

// func propagateAsm(st *state) bool
//
// propagate written in: the band updates, naked singles and column
// singles to the fixed point, with the same result and the same state
// afterwards (todo on a contradiction excepted, see below).
//
// The band updates (top to done): drop from todo the words equal to prev
// (SSE2), then pop the lowest word i of todo, mask it by complexMask (the
// mini-row presence by PEXT), fail if nothing is left, then place the row
// singles. A placement there marks in todo only the words it changed: BTR
// leaves each band word's old bit in CF and ADC gathers the nine into a
// mask that PDEP spreads to the band's todo bits; the digit's column words
// likewise (CMP sets CF when the cleared word is smaller). Word i itself
// never changes when its own row single is placed (once the word is
// masked by complexMask, the single's box and column hold no other cell
// of the band), so it is stored back as w and its todo bit cleared. Words
// marked only when they changed need no test against prev: that test was
// mispredicted on about half the words.
//
// The naked singles and column singles (after done) are nakedSingles and
// columnSingles, in the same order. Their placements (PLACE) mark in todo
// all the words place marks, as they are few: the compare at top drops
// the unchanged ones when they make progress and the band updates run
// again. On a contradiction todo may then differ from the Go loop's, which
// leaves in it words marked though unchanged (the search drops a state
// that fails).
//
// Registers:
//	DI	st
//	R8	todo (stored back on return)
//	R9	band updates: the words updated (their digits go to colDirty
//		at done); column singles: colDirty (stored back on return)
//	SI	i, the word being updated or placed (column singles: scratch
//		before the placements)
//	R10	band updates: w, the masked word i; naked singles: the singles
//		left to place in band b; column singles: the digit's columns
//		with a place, band by band (bit 9b+c)
//	R11	band updates: the row singles left to place; after: progress
//	R12	b, the band of i
//	R13	pos, the cell being placed (column singles: also the mask of
//		a stack's mini-columns)
//	R14	3d, the digit's first word
//	CX	band updates: zero for CMOV, then the mask of changed words;
//		naked singles: the digits of a cell; column singles: the
//		columns with one place left
//	AX, BX, DX	scratch
//	X0-X5	the compare of f and prev at top
TEXT ·propagateAsm(SB), NOSPLIT, $0-9
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
	MOVL	$0x1249249, AX
	PEXTL	AX, BX, BX
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
	TZCNTL	R11, R13
	BLSRL	R11, R11
	MOVL	state_unsolved(DI)(R12*4), AX
	BTRL	R13, AX
	MOVL	AX, state_unsolved(DI)(R12*4)

	// The band's nine words f[3k+b], k = 8 down to 0, so that bit k of
	// CX is word k's old bit.
	XORL	CX, CX
#define SWEEP(off) \
	MOVL	(state_f+off)(DI)(R12*4), AX; \
	BTRL	R13, AX; \
	ADCL	CX, CX; \
	MOVL	AX, (state_f+off)(DI)(R12*4)
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
	MOVL	$0x1249249, AX
	SHLXL	R12, AX, AX
	PDEPL	AX, CX, CX
	ORL	CX, R8

	// The cell's column in the digit's three words f[3d+k], k = 2 down
	// to 0 (word i is restored below).
	LEAQ	·colAt(SB), AX
	MOVL	(AX)(R13*4), DX
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

	TESTL	R11, R11
	JNZ	place
	JMP	loop

done:
	// colDirty gets the digits of the words updated: PEXT of the words'
	// bits ORed three by three.
	RORXL	$1, R9, AX
	RORXL	$2, R9, BX
	ORL	AX, BX
	ORL	R9, BX
	MOVL	$0x1249249, AX
	PEXTL	AX, BX, BX
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

	// Column singles, digit by digit of colDirty.
	MOVL	state_colDirty(DI), R9
	TESTL	R9, R9
	JZ	success
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
#define STACK(m) \
	MOVL	$m, R13; \
	PEXTL	R13, R10, AX; \
	MOVL	(DX)(AX*4), AX; \
	TESTL	AX, AX; \
	JZ	colFail; \
	PDEPL	R13, AX, AX; \
	ORL	AX, BX
	STACK(0x1C0E07)
	STACK(0x1C0E07<<3)
	STACK(0x1C0E07<<6)
#undef STACK
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
	MOVL	(state_f+4)(DI)(R14*4), AX
	MOVL	(state_unsolved+4)(DI), SI
	ANDNL	AX, SI, SI
	ORL	SI, BX
	COUNT(AX)
	ROWS
	MOVL	(state_f+8)(DI)(R14*4), AX
	MOVL	(state_unsolved+8)(DI), SI
	ANDNL	AX, SI, SI
	ORL	SI, BX
	COUNT(AX)
	ROWS
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
	JNZ	colDigit
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
	MOVL	$0x1249249, AX
	PEXTL	AX, BX, BX
	ORL	BX, state_colDirty(DI)
	JMP	fail

colFail:
	MOVL	R9, state_colDirty(DI)
fail:
	MOVL	R8, state_todo(DI)
	MOVB	$0, ret+8(FP)
	RET

// func placeGivens(st *state, grid *Grid) bool
//
// The givens loop of Solve: place each digit of grid, in the order of the
// cells, failing on a value above 9 or on a digit that an earlier given
// rules out. The nonzero cells of each band come from two overlapping
// 16-byte compares (cells 0-15 and 11-26 of the band).
//
// Registers: DI st, R8 todo, R12 b, R13 pos, SI i, R14 3d as in
// propagateAsm; R9 the band's cells not yet looked at that hold a value;
// R10 the band's first cell in grid; AX, BX, DX scratch; X0-X2 the compares.
TEXT ·placeGivens(SB), NOSPLIT, $0-17
	MOVQ	st+0(FP), DI
	MOVQ	grid+8(FP), R10
	MOVL	state_todo(DI), R8
	XORL	R12, R12
	PXOR	X2, X2
givensBand:
	MOVOU	(R10), X0
	MOVOU	11(R10), X1
	PCMPEQB	X2, X0
	PCMPEQB	X2, X1
	PMOVMSKB	X0, AX
	PMOVMSKB	X1, R9
	SHLL	$11, R9
	ORL	AX, R9
	NOTL	R9
	ANDL	$0x7FFFFFF, R9
	JZ	givensNext
givensCell:
	TZCNTL	R9, R13
	BLSRL	R9, R9
	MOVBLZX	(R10)(R13*1), AX
	DECL	AX
	CMPL	AX, $8
	JHI	givensFail // not a digit
	LEAL	(AX)(AX*2), R14
	LEAL	(R14)(R12*1), SI
	MOVL	state_f(DI)(SI*4), AX
	BTL	R13, AX
	JCC	givensFail // ruled out by an earlier given
	PLACE
	TESTL	R9, R9
	JNZ	givensCell
givensNext:
	ADDQ	$27, R10
	INCL	R12
	CMPL	R12, $3
	JLT	givensBand
	MOVL	R8, state_todo(DI)
	MOVB	$1, ret+16(FP)
	RET
givensFail:
	MOVL	R8, state_todo(DI)
	MOVB	$0, ret+16(FP)
	RET
#undef PLACE
