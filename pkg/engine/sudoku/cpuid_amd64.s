//go:build amd64 && !purego

#include "textflag.h"

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL	leaf+0(FP), AX
	MOVL	sub+4(FP), CX
	CPUID
	MOVL	AX, eax+8(FP)
	MOVL	BX, ebx+12(FP)
	MOVL	CX, ecx+16(FP)
	MOVL	DX, edx+20(FP)
	RET

// func pextChain(n int, x uint32) uint32
//
// n dependent PEXTs, each followed by an XOR, with the mini-row mask of
// the band words (nine bits; a microcoded PEXT takes longer the more bits
// its mask has).
TEXT ·pextChain(SB), NOSPLIT, $0-20
	MOVQ	n+0(FP), CX
	MOVL	x+8(FP), AX
	MOVL	$0x1249249, DX
pext:
	PEXTL	DX, AX, AX
	XORL	$0x5a5a5a5, AX
	DECQ	CX
	JNZ	pext
	MOVL	AX, ret+16(FP)
	RET

// func imulChain(n int, x uint32) uint32
//
// n dependent IMULs (three cycles on every processor with BMI2), each
// followed by an XOR: pextChain's yardstick.
TEXT ·imulChain(SB), NOSPLIT, $0-20
	MOVQ	n+0(FP), CX
	MOVL	x+8(FP), AX
	MOVL	$0x1249249, DX
imul:
	IMULL	DX, AX
	XORL	$0x5a5a5a5, AX
	DECQ	CX
	JNZ	imul
	MOVL	AX, ret+16(FP)
	RET
