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
// With PEXT and PDEP.
#define PROPAGATE ·propagateAsm
#define COMPRESS3(r) \
	MOVL	$0x1249249, AX; \
	PEXTL	AX, r, r
#define SPREAD3(r) \
	MOVL	$0x1249249, AX; \
	PDEPL	AX, r, r
// STACK: q = PEXT(R10, M) for stack s, M = 0x1C0E07<<3s (bit 3b+j: band
// b, column j of the stack), k = allowed9[q], and PDEP(k, M) the
// mini-columns allowed, gathered in BX.
#define STACK(s) \
	MOVL	$(0x1C0E07<<(3*s)), R13; \
	PEXTL	R13, R10, AX; \
	MOVL	(DX)(AX*4), AX; \
	TESTL	AX, AX; \
	JZ	colFail; \
	PDEPL	R13, AX, AX; \
	ORL	AX, BX
#include "bandasm_propagate.h"
#undef PROPAGATE
#undef COMPRESS3
#undef SPREAD3
#undef STACK

// func propagateAsmNoPEXT(st *state) bool
//
// propagateAsm without PEXT and PDEP, for processors where they are
// microcoded (AMD before Zen 3): the three bits of each row's boxes
// gathered by two multiplications (t*21 puts bits 9r, 9r+3, 9r+6 at 9r+4
// to 9r+6, and 0x1041 the three groups side by side at bit 16: every
// partial product lands on a bit of its own, so nothing carries), bits
// spread by a table (spread9), the stack masks by shifts.
#define PROPAGATE ·propagateAsmNoPEXT
#define COMPRESS3(r) \
	ANDL	$0x1249249, r; \
	IMUL3L	$21, r, r; \
	ANDL	$0x1C0E070, r; \
	IMUL3Q	$0x1041, r, r; \
	SHRQ	$16, r; \
	ANDL	$0x1FF, r
#define SPREAD3(r) \
	LEAQ	·spread9(SB), AX; \
	MOVL	(AX)(r*4), r
#define STACK(s) \
	MOVL	R10, AX; \
	SHRL	$(3*s), AX; \
	ANDL	$7, AX; \
	MOVL	R10, R13; \
	SHRL	$(6+3*s), R13; \
	ANDL	$0x38, R13; \
	ORL	R13, AX; \
	MOVL	R10, R13; \
	SHRL	$(12+3*s), R13; \
	ANDL	$0x1C0, R13; \
	ORL	R13, AX; \
	MOVL	(DX)(AX*4), AX; \
	TESTL	AX, AX; \
	JZ	colFail; \
	MOVL	AX, R13; \
	ANDL	$7, R13; \
	SHLL	$(3*s), R13; \
	ORL	R13, BX; \
	MOVL	AX, R13; \
	ANDL	$0x38, R13; \
	SHLL	$(6+3*s), R13; \
	ORL	R13, BX; \
	ANDL	$0x1C0, AX; \
	SHLL	$(12+3*s), AX; \
	ORL	AX, BX
#include "bandasm_propagate.h"
#undef PROPAGATE
#undef COMPRESS3
#undef SPREAD3
#undef STACK

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
// (cells 0-15 and 11-26). The mini-rows of G (PEXT of G|G>>1|G>>2, as in
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
// R13 0x1249249 (the mini-row mask); R14 givenPeers; AX, BX scratch.
TEXT ·placeGivens(SB), NOSPLIT, $0-17
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
	PEXTL	R13, AX, AX; \
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
	PDEPL	R13, R8, R8
	IMUL3L	$7, R8, R8
	ORL	AX, R8
	ORL	R8, state_todo(DI)
	MOVB	$1, ret+16(FP)
	RET
givensFail:
	MOVB	$0, ret+16(FP)
	RET


// The tables of colVector (which gathers the band words by ·laneWords0-2,
// triads_amd64.s): masks of a band's 9-bit column set: all, the bits N1
// takes from a right shift (columns 0 and 1 of each stack), those N2 takes
// from a left shift (columns 1 and 2), and column 0 of each stack.
DATA colLow9<>+0(SB)/4, $0x1ff
GLOBL colLow9<>(SB), RODATA|NOPTR, $4
DATA colN1<>+0(SB)/4, $0xdb
GLOBL colN1<>(SB), RODATA|NOPTR, $4
DATA colN2<>+0(SB)/4, $0x1b6
GLOBL colN2<>(SB), RODATA|NOPTR, $4
DATA colStacks<>+0(SB)/4, $0x49
GLOBL colStacks<>(SB), RODATA|NOPTR, $4

// The tables of colVector2: lane d's word 3d+b within its 8-word part of f
// (band b), each lane's own bit (for colDirty's digits), and the masks of
// N1 and N2 (the right-shifted part and the left-shifted part; N2's
// right-shifted part is column 0 of each stack, col2Stacks).
#define COL2WORDS(name, a, b, c, d, e, f, g, h) \
	DATA name<>+0(SB)/4, $a; \
	DATA name<>+4(SB)/4, $b; \
	DATA name<>+8(SB)/4, $c; \
	DATA name<>+12(SB)/4, $d; \
	DATA name<>+16(SB)/4, $e; \
	DATA name<>+20(SB)/4, $f; \
	DATA name<>+24(SB)/4, $g; \
	DATA name<>+28(SB)/4, $h; \
	GLOBL name<>(SB), RODATA|NOPTR, $32
COL2WORDS(col2Words0, 0, 3, 6, 1, 4, 7, 2, 5)
COL2WORDS(col2Words1, 1, 4, 7, 2, 5, 0, 3, 6)
COL2WORDS(col2Words2, 2, 5, 0, 3, 6, 1, 4, 7)
COL2WORDS(col2Lanes, 1, 2, 4, 8, 16, 32, 64, 128)
COL2WORDS(col2Low9, 0x1ff, 0x1ff, 0x1ff, 0x1ff, 0x1ff, 0x1ff, 0x1ff, 0x1ff)
COL2WORDS(col2N1r, 0xdb, 0xdb, 0xdb, 0xdb, 0xdb, 0xdb, 0xdb, 0xdb)
COL2WORDS(col2N1l, 0x124, 0x124, 0x124, 0x124, 0x124, 0x124, 0x124, 0x124)
COL2WORDS(col2N2l, 0x1b6, 0x1b6, 0x1b6, 0x1b6, 0x1b6, 0x1b6, 0x1b6, 0x1b6)
COL2WORDS(col2Stacks, 0x49, 0x49, 0x49, 0x49, 0x49, 0x49, 0x49, 0x49)
#undef COL2WORDS
