//go:build amd64 && !purego

#include "go_asm.h"
#include "textflag.h"

// func bandUpdates(st *state) bool
//
// The band update loop of propagate with updateBand and place written in:
// drop from todo the words equal to prev (SSE2), then pop the lowest word
// i of todo, mask it by complexMask (the mini-row presence by PEXT), fail
// if nothing is left, then place the row singles. A placement marks in
// todo only the words it changed: BTR leaves each band word's old bit in
// CF and ADC gathers the nine into a mask that PDEP spreads to the band's
// todo bits; the digit's column words likewise (CMP sets CF when the
// cleared word is smaller). Word i itself never changes when its own row
// single is placed (once the word is masked by complexMask, the single's
// box and column hold no other cell of the band), so it is stored back as
// w and its todo bit cleared. Words marked only when they changed need no
// test against prev: that test was mispredicted on about half the words.
//
// Registers:
//	DI	st
//	R8	todo (stored back on return)
//	R9	the words updated (their digits go to colDirty on return)
//	SI	i, the word being updated
//	R10	w, the masked word i
//	R11	the row singles left to place
//	R12	b, the band of i
//	R13	pos, the cell being placed
//	R14	3d, the digit's first word
//	AX, BX, CX, DX	scratch (CX zero for CMOV in the singles)
//	X0-X5	the compare of f and prev on entry
TEXT ·bandUpdates(SB), NOSPLIT, $0-9
	MOVQ	st+0(FP), DI
	MOVL	state_todo(DI), R8
	XORL	R9, R9

	// Drop from todo the words equal to prev (marked by the Go code
	// though unchanged), eight words at a time: from here on todo holds
	// only words that changed.
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
	JZ	fail
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

	// colDirty gets the digits of the words updated: PEXT of the words'
	// bits ORed three by three.
#define COLDIRTY \
	RORXL	$1, R9, AX; \
	RORXL	$2, R9, BX; \
	ORL	AX, BX; \
	ORL	R9, BX; \
	MOVL	$0x1249249, AX; \
	PEXTL	AX, BX, BX; \
	ORL	BX, state_colDirty(DI); \
	MOVL	R8, state_todo(DI)

done:
	COLDIRTY
	MOVB	$1, ret+8(FP)
	RET

fail:
	COLDIRTY
	MOVB	$0, ret+8(FP)
	RET
#undef COLDIRTY
