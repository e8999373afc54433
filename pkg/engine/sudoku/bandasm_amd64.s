//go:build amd64 && !purego

#include "go_asm.h"
#include "textflag.h"
#include "lanewords.h"

// func propagateAsm(st *state) bool
//
// propagate written in: the band updates, naked singles and column
// singles to the fixed point, with the same result and the same state
// afterwards (todo on a contradiction excepted, see below).
//
// The band updates (top to done): drop from todo the words equal to prev
// (SSE2), then pop the lowest word i of todo, mask it by complexMask (the
// mini-row presence by PEXT), fail if nothing is left, then place the row
// singles, all of the word's at once (placeSingles). A placement there
// marks in todo only the words it changed: CMP of each band word cleared
// of the cells with the word before sets CF when they had one, and ADC
// gathers the nine into a mask that PDEP spreads to the band's todo bits;
// the digit's column words likewise. Word i itself never changes when its
// own row singles are placed (once the word is masked by complexMask, a
// single's box and column hold no other cell of the band), so it is
// stored back as w and its todo bit cleared. Words
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
// placeGivens: the givens in bulk (bandasm_givens.h), with the same macros.
#define GIVENS ·placeGivens
#include "bandasm_givens.h"
#undef GIVENS
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
// placeGivensNoPEXT: placeGivens without PEXT and PDEP likewise.
#define GIVENS ·placeGivensNoPEXT
#include "bandasm_givens.h"
#undef GIVENS
#undef PROPAGATE
#undef COMPRESS3
#undef SPREAD3
#undef STACK

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
