//go:build amd64 && !purego

#include "go_asm.h"
#include "textflag.h"
#include "lanewords.h"

// triadScanAVX512 is triadScanGo with the nine digits in the lanes 0-8 of
// 512-bit vectors (lanes 9-15 stay zero), branch-free: 155 instructions
// against about 2,400 for the compiled Go, 5 times faster
// (BenchmarkTriadScan).
//
// - W0, W1, W2: the band words f[3d+b] of band b, gathered by VPERMI2D.
// - Mini-row presence of a band word: t = (w|w>>1|w>>2) & 0x01249249 has
//   bit 9r+3x for mini-row 3r+x; a VGF2P8AFFINEQB folds each byte's bits
//   3i..3i+2 into bit i (at most one of them is set), and VPMADDUBSW then
//   VPMADDWD put the four bytes together (b0 | b1<<3 | b2<<6 | b3<<8).
// - Column presence of a band word: w|w>>9|w>>18, then one word per digit
//   for the three bands (CP) with two bit selects (VPTERNLOGD).
// - Rotations within the 3-bit groups (R1: bit j to j+1 mod 3, R2: bit j
//   to j-1 mod 3), on RP for the bands and on CP for the stacks, give the
//   rest: a mini-row is locked if neither group-mate is there
//   (rp &^ R1 &^ R2); a permutation is three bits in three consecutive
//   groups, rotated by 0, 1, 2 (the cyclic ones) or 0, 2, 1 (the others),
//   so one AND of shifted rotations marks each permutation still possible
//   by one bit, and population counts sum them: VPOPCNTB on the bands,
//   whose marks are in byte b, and on the stacks once VPMULTISHIFTQB has
//   moved their marks into bytes. VPUNPCKLDQ and VPUNPCKHDQ put bands
//   and stacks side by side and a few adds sum the digits.
// - Digits present per intersection: one VPERMI2B lays out digits 0-7's
//   words rp|cp<<32 as eight 8x8 bit matrices (qword k: byte k of each
//   digit), VGF2P8AFFINEQB transposes them (byte 8k+j: the digits with
//   bit 8k+j) and VPOPCNTB counts; digit 8 is added through a mask
//   (VPTESTMB on its bytes spread over the qwords). VPCMPUB then gives
//   the intersections with three digits or more (and exactly three) as
//   bit masks in the layout of rp|cp<<32. The same for the locked digits.
// - The digits with something to clear: those masks broadcast back to the
//   lanes, ANDed with RP &^ RF and CP &^ CF, and VPTESTMD.
//
// Registers: Z0-Z1 f, Z2-Z4 the band words, Z5 RP, Z13 CP, Z14 RF,
// Z16 CF, Z17-Z22 scratch, Z26 a constant, K1 the digit lanes.

#define RP Z5
#define CP Z13
#define RF Z14
#define CF Z16
#define ONEHOT Z26

// func triadScanAVX512(f *[32]uint32, tr *triadView, s *triadSums) bool
TEXT ·triadScanAVX512(SB), NOSPLIT, $0-25
	MOVQ f+0(FP), AX
	MOVQ tr+8(FP), BX
	MOVQ s+16(FP), CX
	MOVL $0x1ff, DX
	KMOVW DX, K1
	VPBROADCASTQ triadOneHot<>(SB), ONEHOT

	// The band words, band b in Z2+b, digit d in lane d.
	VMOVDQU32 (AX), Z0
	VMOVDQU32 64(AX), Z1
	LANEWORDS

	// Mini-row presence: P0 in Z5, P1 in Z6, P2 in Z7 (p from the band
	// words w, t scratch).
#define MINIROWS(w, t, p) \
	VPSRLD $1, w, p; \
	VPSRLD $2, w, t; \
	VPTERNLOGD $0xfe, t, w, p; \
	VPANDD.BCST triadMiniRows<>(SB), p, p; \
	VGF2P8AFFINEQB.BCST $0, triadShrink<>(SB), p, p; \
	VPMADDUBSW triadMadd1<>(SB), p, p; \
	VPMADDWD triadMadd2<>(SB), p, p
	MINIROWS(Z2, Z8, Z5)
	MINIROWS(Z3, Z9, Z6)
	MINIROWS(Z4, Z10, Z7)
#undef MINIROWS
	VPSLLD $9, Z6, Z6
	VPSLLD $18, Z7, Z7
	VPTERNLOGD $0xfe, Z7, Z6, RP // RP = P0 | P1<<9 | P2<<18

	// Column presence: X_b = w|w>>9|w>>18 in Z11, Z12, Z13.
#define COLUMNS(w, t, x) \
	VPSRLD $9, w, x; \
	VPSRLD $18, w, t; \
	VPTERNLOGD $0xfe, t, w, x
	COLUMNS(Z2, Z8, Z11)
	COLUMNS(Z3, Z9, Z12)
	COLUMNS(Z4, Z10, Z13)
#undef COLUMNS
	VPSLLD $9, Z12, Z12
	VPSLLD $18, Z13, Z13
	// Bit selects (imm 0xd8: C ? B : A, A the destination): rows 9-17
	// from X1<<9, rows 18-26 from X2<<18, then bits 0-8 and 27-31 from X0
	// (zero above 26).
	VPTERNLOGD.BCST $0xd8, triadRow1<>(SB), Z12, Z13
	VPTERNLOGD.BCST $0xd8, triadRow0<>(SB), Z11, CP

	// R1 (in RF) and R2 (Z18) of RP.
	VPSLLD $1, RP, RF
	VPSRLD $2, RP, Z8
	VPTERNLOGD.BCST $0xd8, triadGroup0<>(SB), Z8, RF
	VPSRLD $1, RP, Z18
	VPSLLD $2, RP, Z8
	VPTERNLOGD.BCST $0xd8, triadGroup2<>(SB), Z8, Z18

	// Permutations per band: x0 = the first row of each band; the cyclic
	// ones marked in bits 9b+x (x0 & R2>>3 & R1>>6), the others in bits
	// 9b+3+x (x0<<3 & R1 & R2>>3); byte b holds band b's marks.
	VPANDD.BCST triadFirstRows<>(SB), RP, Z19
	VPSRLD $3, Z18, Z20
	VPSRLD $6, RF, Z21
	VPSLLD $3, Z19, Z22
	VPTERNLOGD $0x80, Z21, Z20, Z19
	VPTERNLOGD $0x80, RF, Z20, Z22
	VPORD Z19, Z22, Z19
	VPOPCNTB Z19, Z30 // Z30: permutations of band b (byte b), per digit

	// RF = rp &^ R1 &^ R2 (imm 0x02: C &^ A &^ B).
	VPTERNLOGD $0x02, RP, Z18, RF

	// CF = cp &^ (cp<<9 | cp<<18 | cp>>9 | cp>>18): the columns of a band
	// that the other two bands lack.
	VPSLLD $9, CP, CF
	VPSLLD $18, CP, Z18
	VPSRLD $9, CP, Z19
	VPSRLD $18, CP, Z20
	VPTERNLOGD $0xfe, Z19, Z18, CF
	VPTERNLOGD $0x02, CP, Z20, CF

	// Permutations per stack: the same on CP, rows 9 bits apart; the
	// cyclic ones marked in bits 3s+j, the others in bits 9+3s+j.
	VPSLLD $1, CP, Z17
	VPSRLD $2, CP, Z8
	VPTERNLOGD.BCST $0xd8, triadGroup0<>(SB), Z8, Z17
	VPSRLD $1, CP, Z18
	VPSLLD $2, CP, Z8
	VPTERNLOGD.BCST $0xd8, triadGroup2<>(SB), Z8, Z18
	VPANDD.BCST triadRow0Only<>(SB), CP, Z19
	VPSRLD $9, Z18, Z20
	VPSRLD $18, Z17, Z21
	VPSLLD $9, Z19, Z22
	VPTERNLOGD $0x80, Z21, Z20, Z19
	VPTERNLOGD $0x80, Z17, Z20, Z22
	VPORD Z19, Z22, Z19
	// Stack s's marks into byte s: bits 3s..3s+2 of the cyclic ones
	// (VPMULTISHIFTQB: the byte at bit 3s), bits 3..5 the others (the byte
	// at bit 6+3s).
	VPBROADCASTQ triadStackCyc<>(SB), Z20
	VPMULTISHIFTQB Z19, Z20, Z20
	VPBROADCASTQ triadStackOther<>(SB), Z21
	VPMULTISHIFTQB Z19, Z21, Z21
	VPTERNLOGD.BCST $0xd8, triadLow3<>(SB), Z20, Z21
	VPANDD.BCST triadLow6<>(SB), Z21, Z21
	VPOPCNTB Z21, Z20 // Z20: permutations of stack s (byte s), per digit

	// Sum the permutations over the digits: bands in the even dwords,
	// stacks in the odd ones, then halve down to one qword.
	VPUNPCKLDQ Z20, Z30, Z0
	VPUNPCKHDQ Z20, Z30, Z1
	VPADDD Z1, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDD Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPADDD X1, X0, X0
	VPSHUFB triadPermsBytes<>(SB), X0, X0
	VMOVD X0, triadView_perms(BX)
	VPEXTRW $2, X0, triadView_perms+4(BX)

	// choose's digit of each band and stack: the least over the lanes of
	// the keys m<<4 | d, m the digit's permutations there, 7<<4 | d where
	// m < 2 (lanes 9-15 have m = 0, keys above every digit's).
#define KEYS(m, k) \
	VPCMPUB $1, triadTwos<>(SB), m, K2; \
	VPSLLD $4, m, k; \
	VPORD triadDigitBytes<>(SB), k, k; \
	VMOVDQU8 triadNoKeys<>(SB), K2, k
	KEYS(Z30, Z23)
	KEYS(Z20, Z24)
#undef KEYS
	VPUNPCKLDQ Z24, Z23, Z25
	VPUNPCKHDQ Z24, Z23, Z27
	VPMINUB Z27, Z25, Z25
	VEXTRACTI64X4 $1, Z25, Y27
	VPMINUB Y27, Y25, Y25
	VEXTRACTI32X4 $1, Y25, X27
	VPMINUB X27, X25, X25
	VPSHUFD $0x4e, X25, X27
	VPMINUB X27, X25, X25
	VMOVQ X25, triadView_best(BX)

	// Digits present per intersection, in the bytes of Z17.
	VMOVDQU64 triadTranspose<>(SB), Z18
	VPERMI2B CP, RP, Z18
	VGF2P8AFFINEQB $0, Z18, ONEHOT, Z18
	VPOPCNTB Z18, Z17
	VMOVDQU64 triadDigit8<>(SB), Z18
	VPERMI2B CP, RP, Z18
	VPTESTMB ONEHOT, Z18, K2
	VPADDB triadOnes<>(SB), Z17, K2, Z17
	// Digits locked in per intersection, in the bytes of Z19.
	VMOVDQU64 triadTranspose<>(SB), Z18
	VPERMI2B CF, RF, Z18
	VGF2P8AFFINEQB $0, Z18, ONEHOT, Z18
	VPOPCNTB Z18, Z19
	VMOVDQU64 triadDigit8<>(SB), Z18
	VPERMI2B CF, RF, Z18
	VPTESTMB ONEHOT, Z18, K2
	VPADDB triadOnes<>(SB), Z19, K2, Z19

	VPCMPUB $5, triadThrees<>(SB), Z17, K3 // three or more present
	VPCMPUB $0, triadThrees<>(SB), Z17, K4 // exactly three
	VPCMPUB $5, triadThrees<>(SB), Z19, K5 // three or more locked in
	VPCMPUB $5, triadFours<>(SB), Z19, K6  // four or more
	KMOVQ K4, R8
	MOVL R8, triadSums_rowAll(CX)
	SHRQ $32, R8
	MOVL R8, triadSums_colAll(CX)
	KMOVQ K5, R9
	MOVL R9, triadSums_rowLocked(CX)
	SHRQ $32, R9
	MOVL R9, triadSums_colLocked(CX)

	// The digits with something to clear: present, not locked, in an
	// intersection of rowAll|rowLocked or colAll|colLocked.
	KORQ K4, K5, K7
	KMOVQ K7, R12
	VPBROADCASTD R12, Z20
	SHRQ $32, R12
	VPBROADCASTD R12, Z21
	VPTERNLOGD $0x40, RF, RP, Z20 // A & B &^ C
	VPTERNLOGD $0x40, CF, CP, Z21
	VPORD Z20, Z21, Z20
	VPTESTMD Z20, Z20, K7
	KMOVW K7, R12
	MOVL R12, triadSums_work(CX)

	// Lanes 0-7 in one store and lane 8 in another, not one store under
	// K1: a load that reads from a masked store waits for it to be
	// written to the cache, and triads and choose read these at once.
#define STORE9(z, y, off) \
	VMOVDQU32 y, off; \
	VEXTRACTI32X4 $2, z, X22; \
	VMOVD X22, 32+off
	STORE9(RP, Y5, triadView_rowP(BX))
	STORE9(CP, Y13, triadView_colP(BX))
	STORE9(RF, Y14, triadSums_rowF(CX))
	STORE9(CF, Y16, triadSums_colF(CX))
#undef STORE9

	KMOVQ K3, R10
	KMOVQ K6, R11
	MOVQ $0x07ffffff07ffffff, DX
	XORQ DX, R10
	ORQ R11, R10
	SETEQ ret+24(FP)
	VZEROUPPER
	RET

// Dword index vectors of VPERMI2D (LANEWORDS, lanewords.h): lane d takes
// f[3d+b] (band b), lanes 9-15 word 0. Global: propagateAsm's column pass
// gathers (and scatters) the band words by them too (bandasm_propagate.h).
#define LANEWORDSDATA(name, b) \
	DATA name+0(SB)/4, $(b); \
	DATA name+4(SB)/4, $(3+b); \
	DATA name+8(SB)/4, $(6+b); \
	DATA name+12(SB)/4, $(9+b); \
	DATA name+16(SB)/4, $(12+b); \
	DATA name+20(SB)/4, $(15+b); \
	DATA name+24(SB)/4, $(18+b); \
	DATA name+28(SB)/4, $(21+b); \
	DATA name+32(SB)/4, $(24+b); \
	DATA name+36(SB)/4, $0; \
	DATA name+40(SB)/8, $0; \
	DATA name+48(SB)/8, $0; \
	DATA name+56(SB)/8, $0; \
	GLOBL name(SB), RODATA|NOPTR, $64
LANEWORDSDATA(·laneWords0, 0)
LANEWORDSDATA(·laneWords1, 1)
LANEWORDSDATA(·laneWords2, 2)
#undef LANEWORDSDATA

// Byte index vectors of VPERMI2B over RP (0-63) and CP (64-127), or RF
// and CF: byte 8k+i of triadTranspose is byte k of digit i's rp|cp<<32;
// byte 8k+j of triadDigit8 is byte k of digit 8's.
DATA triadTranspose<>+0(SB)/8, $0x1c1814100c080400
DATA triadTranspose<>+8(SB)/8, $0x1d1915110d090501
DATA triadTranspose<>+16(SB)/8, $0x1e1a16120e0a0602
DATA triadTranspose<>+24(SB)/8, $0x1f1b17130f0b0703
DATA triadTranspose<>+32(SB)/8, $0x5c5854504c484440
DATA triadTranspose<>+40(SB)/8, $0x5d5955514d494541
DATA triadTranspose<>+48(SB)/8, $0x5e5a56524e4a4642
DATA triadTranspose<>+56(SB)/8, $0x5f5b57534f4b4743
GLOBL triadTranspose<>(SB), RODATA|NOPTR, $64

DATA triadDigit8<>+0(SB)/8, $0x2020202020202020
DATA triadDigit8<>+8(SB)/8, $0x2121212121212121
DATA triadDigit8<>+16(SB)/8, $0x2222222222222222
DATA triadDigit8<>+24(SB)/8, $0x2323232323232323
DATA triadDigit8<>+32(SB)/8, $0x6060606060606060
DATA triadDigit8<>+40(SB)/8, $0x6161616161616161
DATA triadDigit8<>+48(SB)/8, $0x6262626262626262
DATA triadDigit8<>+56(SB)/8, $0x6363636363636363
GLOBL triadDigit8<>(SB), RODATA|NOPTR, $64

// The matrix of VGF2P8AFFINEQB that sets bit i of a byte to the XOR of
// its bits 3i..3i+2 (byte 7-i of the qword is row i).
DATA triadShrink<>+0(SB)/8, $0x0738c00000000000
GLOBL triadShrink<>(SB), RODATA|NOPTR, $8

// Bytes 0-2 (bands) and 4-6 (stacks) of the summed permutations.
#define DIGITBYTES(name, base) \
	DATA name<>+0(SB)/8, $(base+0x0101010100000000); \
	DATA name<>+8(SB)/8, $(base+0x0303030302020202); \
	DATA name<>+16(SB)/8, $(base+0x0505050504040404); \
	DATA name<>+24(SB)/8, $(base+0x0707070706060606); \
	DATA name<>+32(SB)/8, $(base+0x0909090908080808); \
	DATA name<>+40(SB)/8, $(base+0x0b0b0b0b0a0a0a0a); \
	DATA name<>+48(SB)/8, $(base+0x0d0d0d0d0c0c0c0c); \
	DATA name<>+56(SB)/8, $(base+0x0f0f0f0f0e0e0e0e); \
	GLOBL name<>(SB), RODATA|NOPTR, $64
// Lane d's bytes d (triadDigitBytes) and 0x70 | d (triadNoKeys): choose's
// keys.
DIGITBYTES(triadDigitBytes, 0)
DIGITBYTES(triadNoKeys, 0x7070707070707070)
#undef DIGITBYTES
DATA triadTwos<>+0(SB)/8, $0x0202020202020202
DATA triadTwos<>+8(SB)/8, $0x0202020202020202
DATA triadTwos<>+16(SB)/8, $0x0202020202020202
DATA triadTwos<>+24(SB)/8, $0x0202020202020202
DATA triadTwos<>+32(SB)/8, $0x0202020202020202
DATA triadTwos<>+40(SB)/8, $0x0202020202020202
DATA triadTwos<>+48(SB)/8, $0x0202020202020202
DATA triadTwos<>+56(SB)/8, $0x0202020202020202
GLOBL triadTwos<>(SB), RODATA|NOPTR, $64
DATA triadPermsBytes<>+0(SB)/8, $0x8080060504020100
DATA triadPermsBytes<>+8(SB)/8, $0x8080808080808080
GLOBL triadPermsBytes<>(SB), RODATA|NOPTR, $16

DATA triadOneHot<>+0(SB)/8, $0x8040201008040201
GLOBL triadOneHot<>(SB), RODATA|NOPTR, $8

DATA triadMadd1<>+0(SB)/8, $0x0401080104010801
DATA triadMadd1<>+8(SB)/8, $0x0401080104010801
DATA triadMadd1<>+16(SB)/8, $0x0401080104010801
DATA triadMadd1<>+24(SB)/8, $0x0401080104010801
DATA triadMadd1<>+32(SB)/8, $0x0401080104010801
DATA triadMadd1<>+40(SB)/8, $0x0401080104010801
DATA triadMadd1<>+48(SB)/8, $0x0401080104010801
DATA triadMadd1<>+56(SB)/8, $0x0401080104010801
GLOBL triadMadd1<>(SB), RODATA|NOPTR, $64 // byte weights 1, 8, 1, 4
DATA triadMadd2<>+0(SB)/8, $0x0040000100400001
DATA triadMadd2<>+8(SB)/8, $0x0040000100400001
DATA triadMadd2<>+16(SB)/8, $0x0040000100400001
DATA triadMadd2<>+24(SB)/8, $0x0040000100400001
DATA triadMadd2<>+32(SB)/8, $0x0040000100400001
DATA triadMadd2<>+40(SB)/8, $0x0040000100400001
DATA triadMadd2<>+48(SB)/8, $0x0040000100400001
DATA triadMadd2<>+56(SB)/8, $0x0040000100400001
GLOBL triadMadd2<>(SB), RODATA|NOPTR, $64 // word weights 1, 64
DATA triadOnes<>+0(SB)/8, $0x0101010101010101
DATA triadOnes<>+8(SB)/8, $0x0101010101010101
DATA triadOnes<>+16(SB)/8, $0x0101010101010101
DATA triadOnes<>+24(SB)/8, $0x0101010101010101
DATA triadOnes<>+32(SB)/8, $0x0101010101010101
DATA triadOnes<>+40(SB)/8, $0x0101010101010101
DATA triadOnes<>+48(SB)/8, $0x0101010101010101
DATA triadOnes<>+56(SB)/8, $0x0101010101010101
GLOBL triadOnes<>(SB), RODATA|NOPTR, $64
DATA triadThrees<>+0(SB)/8, $0x0303030303030303
DATA triadThrees<>+8(SB)/8, $0x0303030303030303
DATA triadThrees<>+16(SB)/8, $0x0303030303030303
DATA triadThrees<>+24(SB)/8, $0x0303030303030303
DATA triadThrees<>+32(SB)/8, $0x0303030303030303
DATA triadThrees<>+40(SB)/8, $0x0303030303030303
DATA triadThrees<>+48(SB)/8, $0x0303030303030303
DATA triadThrees<>+56(SB)/8, $0x0303030303030303
GLOBL triadThrees<>(SB), RODATA|NOPTR, $64
DATA triadFours<>+0(SB)/8, $0x0404040404040404
DATA triadFours<>+8(SB)/8, $0x0404040404040404
DATA triadFours<>+16(SB)/8, $0x0404040404040404
DATA triadFours<>+24(SB)/8, $0x0404040404040404
DATA triadFours<>+32(SB)/8, $0x0404040404040404
DATA triadFours<>+40(SB)/8, $0x0404040404040404
DATA triadFours<>+48(SB)/8, $0x0404040404040404
DATA triadFours<>+56(SB)/8, $0x0404040404040404
GLOBL triadFours<>(SB), RODATA|NOPTR, $64

DATA triadMiniRows<>+0(SB)/4, $0x01249249 // bits 9r+3x
GLOBL triadMiniRows<>(SB), RODATA|NOPTR, $4
DATA triadGroup0<>+0(SB)/4, $0x49249249 // bit 0 of each 3-bit group
GLOBL triadGroup0<>(SB), RODATA|NOPTR, $4
DATA triadGroup2<>+0(SB)/4, $0x24924924 // bit 2 of each 3-bit group
GLOBL triadGroup2<>(SB), RODATA|NOPTR, $4
DATA triadRow0<>+0(SB)/4, $0xf80001ff // bits 0-8 and 27-31
GLOBL triadRow0<>(SB), RODATA|NOPTR, $4
DATA triadRow1<>+0(SB)/4, $0x0003fe00 // bits 9-17
GLOBL triadRow1<>(SB), RODATA|NOPTR, $4
DATA triadRow0Only<>+0(SB)/4, $0x000001ff
GLOBL triadRow0Only<>(SB), RODATA|NOPTR, $4
DATA triadFirstRows<>+0(SB)/4, $0x001c0e07 // bits 9b+x
GLOBL triadFirstRows<>(SB), RODATA|NOPTR, $4
DATA triadStackCyc<>+0(SB)/8, $0x2026232000060300 // bytes 0-2: bits 0, 3, 6 (+32 for the odd dword)
GLOBL triadStackCyc<>(SB), RODATA|NOPTR, $8
DATA triadStackOther<>+0(SB)/8, $0x202c2926000c0906 // bytes 0-2: bits 6, 9, 12
GLOBL triadStackOther<>(SB), RODATA|NOPTR, $8
DATA triadLow3<>+0(SB)/4, $0x07070707
GLOBL triadLow3<>(SB), RODATA|NOPTR, $4
DATA triadLow6<>+0(SB)/4, $0x003f3f3f
GLOBL triadLow6<>(SB), RODATA|NOPTR, $4

// triadScanAVX2 is triadScanGo in AVX2, for processors without AVX-512:
// digits 0-7 in the eight lanes of 256-bit vectors and digit 8 apart, in
// lane 0 of 128-bit ones (the same macros on X registers), branch-free.
// It computes what triadScanAVX512 does with the instructions AVX2 has:
//
// - The band words of digits 0-7: two VPBLENDD and a VPERMD a band.
// - Mini-row presence: t = (w|w>>1|w>>2) & 0x01249249 as there, then two
//   VPSHUFB lookups on its nibbles fold each byte's bits 3i..3i+2 into bit
//   i (VGF2P8AFFINEQB's work), and VPMADDUBSW and VPMADDWD as there.
// - Permutations: marked as there, then counted in place: v - (v>>1 &
//   0b011) - (v>>2 & 0b001) is the population count of each 3-bit group
//   v, and the two groups of a band (or stack) are added into one field of
//   9 bits (at 9b), where the sums over the digits stay apart.
// - Digits present (and locked in) per intersection: bit-sliced counters
//   that saturate at four, merged across the lanes in three halvings
//   (VPERM2I128, then VPSHUFD twice), mini-rows in the low half and
//   mini-columns in the high half; digit 8 is added last.
//
// Registers: Y9 RP, Y10 CP, Y4 RF, Y5 CF; X11, X12, X14, X15 the same of
// digit 8; Y14, Y15 the nibble tables until they are free.

#define MINIROWS(w, t, p, lo, hi) \
	VPSRLD $1, w, p; \
	VPSRLD $2, w, t; \
	VPOR t, p, p; \
	VPOR w, p, p; \
	VPAND avxMiniRows<>(SB), p, p; \
	VPSRLW $4, p, t; \
	VPAND avxNibbles<>(SB), t, t; \
	VPAND avxNibbles<>(SB), p, p; \
	VPSHUFB p, lo, p; \
	VPSHUFB t, hi, t; \
	VPOR t, p, p; \
	VPMADDUBSW triadMadd1<>(SB), p, p; \
	VPMADDWD triadMadd2<>(SB), p, p

// COLUMNS: x = (w | w>>9 | w>>18) & 0x1ff.
#define COLUMNS(w, t, x) \
	VPSRLD $9, w, x; \
	VPSRLD $18, w, t; \
	VPOR t, x, x; \
	VPOR w, x, x; \
	VPAND avxLow9<>(SB), x, x

// ROT1: o = x with bit j of each 3-bit group moved to j+1 mod 3; ROT2: to
// j-1 mod 3.
#define ROT1(x, t, o) \
	VPSLLD $1, x, o; \
	VPAND avxNotGroup0<>(SB), o, o; \
	VPSRLD $2, x, t; \
	VPAND avxGroup0<>(SB), t, t; \
	VPOR t, o, o
#define ROT2(x, t, o) \
	VPSRLD $1, x, o; \
	VPAND avxNotGroup2<>(SB), o, o; \
	VPSLLD $2, x, t; \
	VPAND avxGroup2<>(SB), t, t; \
	VPOR t, o, o

// GROUPPOP: c = the population count of each 3-bit group of m, in place.
#define GROUPPOP(m, t, c) \
	VPSRLD $1, m, t; \
	VPAND avxNotGroup2<>(SB), t, t; \
	VPSUBD t, m, c; \
	VPSRLD $2, m, t; \
	VPAND avxGroup0<>(SB), t, t; \
	VPSUBD t, c, c

// PERMS: o = the permutations left in each band (stack), counted in the
// 3-bit group at bit 9b of each band's first row (bit 3s of the stacks'
// first band), from x (rp or cp; first its first row or band) and its
// rotations r1, r2, with s the distance of two rows (3) or bands (9): the
// cyclic permutations marked at first & r2>>s & r1>>2s, the others at
// (first<<s) & r1 & r2>>s (as triadScanAVX512 marks them), then the two
// groups added.
#define PERMS(x, r1, r2, t1, t2, o, first, s, s2) \
	VPAND first, x, t1; \
	VPSRLD $(s), r2, t2; \
	VPSLLD $(s), t1, o; \
	VPAND r1, o, o; \
	VPAND t2, o, o; \
	VPAND t2, t1, t1; \
	VPSRLD $(s2), r1, t2; \
	VPAND t2, t1, t1; \
	VPOR t1, o, o; \
	GROUPPOP(o, t1, t2); \
	VPSRLD $(s), t2, t1; \
	VPADDD t1, t2, o; \
	VPAND first, o, o

// BANDS: o = the permutations left in band b, in bits 9b..9b+2.
#define BANDS(rp, r1, r2, t1, t2, o) PERMS(rp, r1, r2, t1, t2, o, avxFirstRows<>(SB), 3, 6)

// STACKS: o = the permutations left in stack s, in bits 9s..9s+2 (moved
// from bits 3s).
#define STACKS(cp, r1, r2, t1, t2, o) \
	PERMS(cp, r1, r2, t1, t2, o, avxLow9<>(SB), 9, 18); \
	VPSLLD $6, o, t1; \
	VPSLLD $12, o, t2; \
	VPOR t1, o, o; \
	VPOR t2, o, o; \
	VPAND avxFirstRows<>(SB), o, o

// LOCKCOLS: cf = cp &^ (cp<<9 | cp<<18 | cp>>9 | cp>>18).
#define LOCKCOLS(cp, t1, t2, cf) \
	VPSLLD $9, cp, t1; \
	VPSLLD $18, cp, t2; \
	VPOR t2, t1, t1; \
	VPSRLD $9, cp, t2; \
	VPOR t2, t1, t1; \
	VPSRLD $18, cp, t2; \
	VPOR t2, t1, t1; \
	VPANDN cp, t1, cf

// HOR3: o = lanes 0-2 of v ORed into lane 0, lanes 1-3 zero (lane 3 of v
// zero).
#define HOR3(v, t, o) \
	VPSRLDQ $8, v, t; \
	VPOR t, v, o; \
	VPSRLDQ $4, o, t; \
	VPOR t, o, o; \
	VPAND avxLane0<>(SB), o, o

// COUNT: with r the digits' rows and c their columns (lanes 0-7), r8 and
// c8 digit 8's (lane 0 of a register whose other lanes are zero), q3 and
// q4 the intersections with at least three and at least four digits:
// mini-rows in lane 0, mini-columns in lane 4. Scratch: t0-t5.
#define COUNT(r, c, r8, c8, t0, t1, t2, t3, t4, t5, q3, q4) \
	VPERM2I128 $0x20, c, r, t0; \
	VPERM2I128 $0x31, c, r, t1; \
	VPAND t1, t0, t2; \
	VPOR t1, t0, t0; \
	VPSHUFD $0x4e, t0, t1; \
	VPSHUFD $0x4e, t2, t3; \
	VPAND t3, t2, q4; \
	VPAND t1, t2, q3; \
	VPAND t3, t0, t4; \
	VPOR t4, q3, q3; \
	VPOR t3, t2, t2; \
	VPAND t1, t0, t4; \
	VPOR t4, t2, t2; \
	VPOR t1, t0, t0; \
	VPSHUFD $0xb1, t0, t1; \
	VPSHUFD $0xb1, t2, t3; \
	VPSHUFD $0xb1, q3, t5; \
	VPSHUFD $0xb1, q4, t4; \
	VPOR t4, q4, q4; \
	VPAND t1, q3, t4; \
	VPOR t4, q4, q4; \
	VPAND t3, t2, t4; \
	VPOR t4, q4, q4; \
	VPAND t5, t0, t4; \
	VPOR t4, q4, q4; \
	VPOR t5, q3, q3; \
	VPAND t1, t2, t4; \
	VPOR t4, q3, q3; \
	VPAND t3, t0, t4; \
	VPOR t4, q3, q3; \
	VPOR t3, t2, t2; \
	VPAND t1, t0, t4; \
	VPOR t4, t2, t2; \
	VINSERTI128 $1, c8, r8, t0; \
	VPAND t0, q3, t4; \
	VPOR t4, q4, q4; \
	VPAND t0, t2, t4; \
	VPOR t4, q3, q3

// func triadScanAVX2(f *[32]uint32, tr *triadView, s *triadSums) bool
TEXT ·triadScanAVX2(SB), NOSPLIT, $0-25
	MOVQ f+0(FP), AX
	MOVQ tr+8(FP), BX
	MOVQ s+16(FP), CX
	VMOVDQU avxNibbleLo<>(SB), Y14
	VMOVDQU avxNibbleHi<>(SB), Y15

	// The band words: band b of digits 0-7 in Y3+b, lane d; digit 8's
	// three in lanes 0-2 of X12 (lane 3 is f[27], unused).
	VMOVDQU (AX), Y0
	VMOVDQU 32(AX), Y1
	VMOVDQU 64(AX), Y2
	VMOVDQU 96(AX), X12
	VPBLENDD $0x92, Y1, Y0, Y3
	VPBLENDD $0x24, Y2, Y3, Y3
	VMOVDQU avxBand0<>(SB), Y6
	VPERMD Y3, Y6, Y3
	VPBLENDD $0x24, Y1, Y0, Y4
	VPBLENDD $0x49, Y2, Y4, Y4
	VMOVDQU avxBand1<>(SB), Y6
	VPERMD Y4, Y6, Y4
	VPBLENDD $0x49, Y1, Y0, Y5
	VPBLENDD $0x92, Y2, Y5, Y5
	VMOVDQU avxBand2<>(SB), Y6
	VPERMD Y5, Y6, Y5

	// RP = P0 | P1<<9 | P2<<18 in Y9, CP in Y10.
	MINIROWS(Y3, Y0, Y6, Y14, Y15)
	MINIROWS(Y4, Y1, Y7, Y14, Y15)
	MINIROWS(Y5, Y2, Y8, Y14, Y15)
	VPSLLD $9, Y7, Y7
	VPSLLD $18, Y8, Y8
	VPOR Y7, Y6, Y9
	VPOR Y8, Y9, Y9
	COLUMNS(Y3, Y0, Y6)
	COLUMNS(Y4, Y1, Y7)
	COLUMNS(Y5, Y2, Y8)
	VPSLLD $9, Y7, Y7
	VPSLLD $18, Y8, Y8
	VPOR Y7, Y6, Y10
	VPOR Y8, Y10, Y10
	// Digit 8: its bands' presence shifted by 0, 9, 18 (and lane 3 by
	// 32, to zero), then ORed: RP8 in X11, CP8 in X12.
	MINIROWS(X12, X0, X6, X14, X15)
	COLUMNS(X12, X0, X7)
	VPSLLVD avxShifts<>(SB), X6, X6
	VPSLLVD avxShifts<>(SB), X7, X7
	HOR3(X6, X0, X11)
	HOR3(X7, X0, X12)
	VMOVDQU Y9, triadView_rowP(BX)
	VMOVD X11, triadView_rowP+32(BX)
	VMOVDQU Y10, triadView_colP(BX)
	VMOVD X12, triadView_colP+32(BX)

	// Bands: permutations in Y13, RF in Y4; stacks: permutations in Y8,
	// CF in Y5. Then digit 8's: X6 and X14, X7 and X15.
	ROT1(Y9, Y2, Y0)
	ROT2(Y9, Y2, Y1)
	BANDS(Y9, Y0, Y1, Y2, Y3, Y13)
	VPOR Y0, Y1, Y2
	VPANDN Y9, Y2, Y4
	ROT1(Y10, Y2, Y0)
	ROT2(Y10, Y2, Y1)
	STACKS(Y10, Y0, Y1, Y2, Y3, Y8)
	LOCKCOLS(Y10, Y2, Y3, Y5)
	ROT1(X11, X2, X0)
	ROT2(X11, X2, X1)
	BANDS(X11, X0, X1, X2, X3, X6)
	VPOR X0, X1, X2
	VPANDN X11, X2, X14
	ROT1(X12, X2, X0)
	ROT2(X12, X2, X1)
	STACKS(X12, X0, X1, X2, X3, X7)
	LOCKCOLS(X12, X2, X3, X15)
	VMOVDQU Y4, triadSums_rowF(CX)
	VMOVD X14, triadSums_rowF+32(CX)
	VMOVDQU Y5, triadSums_colF(CX)
	VMOVD X15, triadSums_colF+32(CX)

	// choose's digit of each band and stack (see triadScanAVX512), before
	// the sums overwrite the digits' permutations: each count (bits 9b)
	// moved into byte b, the keys m<<4 | d (7<<4 | d where m < 2), the
	// least over the lanes and digit 8's.
#define TOBYTES(x, t, o) \
	VPAND avxKeyByte0<>(SB), x, o; \
	VPSRLD $1, x, t; \
	VPAND avxKeyByte1<>(SB), t, t; \
	VPOR t, o, o; \
	VPSRLD $2, x, t; \
	VPAND avxKeyByte2<>(SB), t, t; \
	VPOR t, o, o
#define KEYS(o, t, digits, none) \
	VMOVDQU avxTwos<>(SB), t; \
	VPCMPGTB o, t, t; \
	VPSLLD $4, o, o; \
	VPOR digits, o, o; \
	VPBLENDVB t, none, o, o
#define LEAST(y, x, x8, t) \
	VEXTRACTI128 $1, y, t; \
	VPMINUB t, x, x; \
	VPMINUB x8, x, x; \
	VPSHUFD $0x4e, x, t; \
	VPMINUB t, x, x; \
	VPSHUFD $0xb1, x, t; \
	VPMINUB t, x, x
	TOBYTES(Y13, Y2, Y0)
	KEYS(Y0, Y2, avxDigitBytes<>(SB), avxNoKeys<>(SB))
	TOBYTES(X6, X3, X1)
	KEYS(X1, X3, avxDigitBytes8<>(SB), avxNoKeys8<>(SB))
	LEAST(Y0, X0, X1, X2)
	TOBYTES(Y8, Y2, Y1)
	KEYS(Y1, Y2, avxDigitBytes<>(SB), avxNoKeys<>(SB))
	TOBYTES(X7, X3, X2)
	KEYS(X2, X3, avxDigitBytes8<>(SB), avxNoKeys8<>(SB))
	LEAST(Y1, X1, X2, X3)
#undef TOBYTES
#undef KEYS
#undef LEAST
	VPUNPCKLDQ X1, X0, X0
	VMOVQ X0, triadView_best(BX)

	// The permutations summed over the digits: bands in lane 0, stacks in
	// lane 1, band (stack) b's in bits 9b.
	VPADDD Y6, Y13, Y13
	VPADDD Y7, Y8, Y8
	VPHADDD Y8, Y13, Y13
	VPHADDD Y13, Y13, Y13
	VEXTRACTI128 $1, Y13, X0
	VPADDD X0, X13, X13
	VMOVQ X13, R8
	MOVB R8, triadView_perms+0(BX)
	SHRQ $9, R8
	MOVB R8, triadView_perms+1(BX)
	SHRQ $9, R8
	MOVB R8, triadView_perms+2(BX)
	SHRQ $14, R8
	MOVB R8, triadView_perms+3(BX)
	SHRQ $9, R8
	MOVB R8, triadView_perms+4(BX)
	SHRQ $9, R8
	MOVB R8, triadView_perms+5(BX)

	// Digits present: three or more in R8, four or more in R9; locked in:
	// R10, R11 (mini-rows in the low half, mini-columns in the high).
	COUNT(Y9, Y10, Y11, X12, Y0, Y1, Y2, Y3, Y8, Y13, Y7, Y6)
	VEXTRACTI128 $1, Y7, X0
	VPUNPCKLDQ X0, X7, X0
	VMOVQ X0, R8
	VEXTRACTI128 $1, Y6, X0
	VPUNPCKLDQ X0, X6, X0
	VMOVQ X0, R9
	COUNT(Y4, Y5, Y14, X15, Y0, Y1, Y2, Y3, Y8, Y13, Y7, Y6)
	VEXTRACTI128 $1, Y7, X0
	VPUNPCKLDQ X0, X7, X0
	VMOVQ X0, R10
	VEXTRACTI128 $1, Y6, X0
	VPUNPCKLDQ X0, X6, X0
	VMOVQ X0, R11

	MOVQ R9, R12
	NOTQ R12
	ANDQ R8, R12 // exactly three present
	MOVL R12, triadSums_rowAll(CX)
	MOVQ R12, R13
	SHRQ $32, R13
	MOVL R13, triadSums_colAll(CX)
	MOVL R10, triadSums_rowLocked(CX)
	MOVQ R10, R13
	SHRQ $32, R13
	MOVL R13, triadSums_colLocked(CX)

	// The digits with something to clear: (RP &^ RF & rows) | (CP &^ CF
	// & cols) not zero, rows and cols the intersections of rowAll |
	// rowLocked and colAll | colLocked.
	ORQ R10, R12
	VMOVQ R12, X0
	VPBROADCASTD X0, Y1
	VPSRLQ $32, X0, X0
	VPBROADCASTD X0, Y2
	VPXOR Y7, Y7, Y7
	VPANDN Y9, Y4, Y3
	VPAND Y1, Y3, Y3
	VPANDN Y10, Y5, Y6
	VPAND Y2, Y6, Y6
	VPOR Y6, Y3, Y3
	VPCMPEQD Y7, Y3, Y3
	VMOVMSKPS Y3, DX
	VPANDN X11, X14, X3
	VPAND X1, X3, X3
	VPANDN X12, X15, X6
	VPAND X2, X6, X6
	VPOR X6, X3, X3
	VPCMPEQD X7, X3, X3
	VMOVMSKPS X3, SI
	ANDL $1, SI
	SHLL $8, SI
	ORL SI, DX
	NOTL DX
	ANDL $0x1ff, DX
	MOVL DX, triadSums_work(CX)

	MOVQ $0x07ffffff07ffffff, DX
	XORQ DX, R8
	ORQ R11, R8
	SETEQ ret+24(FP)
	VZEROUPPER
	RET

#undef MINIROWS
#undef COLUMNS
#undef ROT1
#undef ROT2
#undef GROUPPOP
#undef PERMS
#undef BANDS
#undef STACKS
#undef LOCKCOLS
#undef HOR3
#undef COUNT

// Dword index vectors of VPERMD, after the blends: lane d takes f[3d+b].
DATA avxBand0<>+0(SB)/4, $0x0
DATA avxBand0<>+4(SB)/4, $0x3
DATA avxBand0<>+8(SB)/4, $0x6
DATA avxBand0<>+12(SB)/4, $0x1
DATA avxBand0<>+16(SB)/4, $0x4
DATA avxBand0<>+20(SB)/4, $0x7
DATA avxBand0<>+24(SB)/4, $0x2
DATA avxBand0<>+28(SB)/4, $0x5
GLOBL avxBand0<>(SB), RODATA|NOPTR, $32

DATA avxBand1<>+0(SB)/4, $0x1
DATA avxBand1<>+4(SB)/4, $0x4
DATA avxBand1<>+8(SB)/4, $0x7
DATA avxBand1<>+12(SB)/4, $0x2
DATA avxBand1<>+16(SB)/4, $0x5
DATA avxBand1<>+20(SB)/4, $0x0
DATA avxBand1<>+24(SB)/4, $0x3
DATA avxBand1<>+28(SB)/4, $0x6
GLOBL avxBand1<>(SB), RODATA|NOPTR, $32

DATA avxBand2<>+0(SB)/4, $0x2
DATA avxBand2<>+4(SB)/4, $0x5
DATA avxBand2<>+8(SB)/4, $0x0
DATA avxBand2<>+12(SB)/4, $0x3
DATA avxBand2<>+16(SB)/4, $0x6
DATA avxBand2<>+20(SB)/4, $0x1
DATA avxBand2<>+24(SB)/4, $0x4
DATA avxBand2<>+28(SB)/4, $0x7
GLOBL avxBand2<>(SB), RODATA|NOPTR, $32

// Nibble tables of VPSHUFB: bit k of a byte's low (high) nibble to bit
// k/3 (k+4 to (k+4)/3).
DATA avxNibbleLo<>+0(SB)/8, $0x0101010101010100
DATA avxNibbleLo<>+8(SB)/8, $0x0303030303030302
DATA avxNibbleLo<>+16(SB)/8, $0x0101010101010100
DATA avxNibbleLo<>+24(SB)/8, $0x0303030303030302
GLOBL avxNibbleLo<>(SB), RODATA|NOPTR, $32 // bits 0-2 to bit 0, bit 3 to bit 1

DATA avxNibbleHi<>+0(SB)/8, $0x0606060402020200
DATA avxNibbleHi<>+8(SB)/8, $0x0606060406060604
DATA avxNibbleHi<>+16(SB)/8, $0x0606060402020200
DATA avxNibbleHi<>+24(SB)/8, $0x0606060406060604
GLOBL avxNibbleHi<>(SB), RODATA|NOPTR, $32 // bits 4-5 to bit 1, bits 6-7 to bit 2

DATA avxMiniRows<>+0(SB)/4, $0x01249249
DATA avxMiniRows<>+4(SB)/4, $0x01249249
DATA avxMiniRows<>+8(SB)/4, $0x01249249
DATA avxMiniRows<>+12(SB)/4, $0x01249249
DATA avxMiniRows<>+16(SB)/4, $0x01249249
DATA avxMiniRows<>+20(SB)/4, $0x01249249
DATA avxMiniRows<>+24(SB)/4, $0x01249249
DATA avxMiniRows<>+28(SB)/4, $0x01249249
GLOBL avxMiniRows<>(SB), RODATA|NOPTR, $32 // bits 9r+3x

DATA avxNibbles<>+0(SB)/4, $0x0f0f0f0f
DATA avxNibbles<>+4(SB)/4, $0x0f0f0f0f
DATA avxNibbles<>+8(SB)/4, $0x0f0f0f0f
DATA avxNibbles<>+12(SB)/4, $0x0f0f0f0f
DATA avxNibbles<>+16(SB)/4, $0x0f0f0f0f
DATA avxNibbles<>+20(SB)/4, $0x0f0f0f0f
DATA avxNibbles<>+24(SB)/4, $0x0f0f0f0f
DATA avxNibbles<>+28(SB)/4, $0x0f0f0f0f
GLOBL avxNibbles<>(SB), RODATA|NOPTR, $32

DATA avxLow9<>+0(SB)/4, $0x000001ff
DATA avxLow9<>+4(SB)/4, $0x000001ff
DATA avxLow9<>+8(SB)/4, $0x000001ff
DATA avxLow9<>+12(SB)/4, $0x000001ff
DATA avxLow9<>+16(SB)/4, $0x000001ff
DATA avxLow9<>+20(SB)/4, $0x000001ff
DATA avxLow9<>+24(SB)/4, $0x000001ff
DATA avxLow9<>+28(SB)/4, $0x000001ff
GLOBL avxLow9<>(SB), RODATA|NOPTR, $32

DATA avxGroup0<>+0(SB)/4, $0x49249249
DATA avxGroup0<>+4(SB)/4, $0x49249249
DATA avxGroup0<>+8(SB)/4, $0x49249249
DATA avxGroup0<>+12(SB)/4, $0x49249249
DATA avxGroup0<>+16(SB)/4, $0x49249249
DATA avxGroup0<>+20(SB)/4, $0x49249249
DATA avxGroup0<>+24(SB)/4, $0x49249249
DATA avxGroup0<>+28(SB)/4, $0x49249249
GLOBL avxGroup0<>(SB), RODATA|NOPTR, $32 // bit 0 of each 3-bit group

DATA avxNotGroup0<>+0(SB)/4, $0xb6db6db6
DATA avxNotGroup0<>+4(SB)/4, $0xb6db6db6
DATA avxNotGroup0<>+8(SB)/4, $0xb6db6db6
DATA avxNotGroup0<>+12(SB)/4, $0xb6db6db6
DATA avxNotGroup0<>+16(SB)/4, $0xb6db6db6
DATA avxNotGroup0<>+20(SB)/4, $0xb6db6db6
DATA avxNotGroup0<>+24(SB)/4, $0xb6db6db6
DATA avxNotGroup0<>+28(SB)/4, $0xb6db6db6
GLOBL avxNotGroup0<>(SB), RODATA|NOPTR, $32

DATA avxGroup2<>+0(SB)/4, $0x24924924
DATA avxGroup2<>+4(SB)/4, $0x24924924
DATA avxGroup2<>+8(SB)/4, $0x24924924
DATA avxGroup2<>+12(SB)/4, $0x24924924
DATA avxGroup2<>+16(SB)/4, $0x24924924
DATA avxGroup2<>+20(SB)/4, $0x24924924
DATA avxGroup2<>+24(SB)/4, $0x24924924
DATA avxGroup2<>+28(SB)/4, $0x24924924
GLOBL avxGroup2<>(SB), RODATA|NOPTR, $32 // bit 2 of each 3-bit group

DATA avxNotGroup2<>+0(SB)/4, $0xdb6db6db
DATA avxNotGroup2<>+4(SB)/4, $0xdb6db6db
DATA avxNotGroup2<>+8(SB)/4, $0xdb6db6db
DATA avxNotGroup2<>+12(SB)/4, $0xdb6db6db
DATA avxNotGroup2<>+16(SB)/4, $0xdb6db6db
DATA avxNotGroup2<>+20(SB)/4, $0xdb6db6db
DATA avxNotGroup2<>+24(SB)/4, $0xdb6db6db
DATA avxNotGroup2<>+28(SB)/4, $0xdb6db6db
GLOBL avxNotGroup2<>(SB), RODATA|NOPTR, $32

DATA avxFirstRows<>+0(SB)/4, $0x001c0e07
DATA avxFirstRows<>+4(SB)/4, $0x001c0e07
DATA avxFirstRows<>+8(SB)/4, $0x001c0e07
DATA avxFirstRows<>+12(SB)/4, $0x001c0e07
DATA avxFirstRows<>+16(SB)/4, $0x001c0e07
DATA avxFirstRows<>+20(SB)/4, $0x001c0e07
DATA avxFirstRows<>+24(SB)/4, $0x001c0e07
DATA avxFirstRows<>+28(SB)/4, $0x001c0e07
GLOBL avxFirstRows<>(SB), RODATA|NOPTR, $32 // bits 9b+x

DATA avxShifts<>+0(SB)/4, $0x0
DATA avxShifts<>+4(SB)/4, $0x9
DATA avxShifts<>+8(SB)/4, $0x12
DATA avxShifts<>+12(SB)/4, $0x20
GLOBL avxShifts<>(SB), RODATA|NOPTR, $16

DATA avxLane0<>+0(SB)/4, $0xffffffff
DATA avxLane0<>+4(SB)/4, $0x0
DATA avxLane0<>+8(SB)/4, $0x0
DATA avxLane0<>+12(SB)/4, $0x0
GLOBL avxLane0<>(SB), RODATA|NOPTR, $16

// choose's keys in triadScanAVX2: the three counts of a dword (bits 0, 9
// and 18) moved to bytes 0-2 (avxKeyByte0-2), byte comparands 2, and lane
// d's bytes d and 0x70 | d (lanes 0-7; digit 8's in lane 0 of the 8s, the
// other lanes above every key).
#define AVX32(name, v) \
	DATA name<>+0(SB)/4, $v; \
	DATA name<>+4(SB)/4, $v; \
	DATA name<>+8(SB)/4, $v; \
	DATA name<>+12(SB)/4, $v; \
	DATA name<>+16(SB)/4, $v; \
	DATA name<>+20(SB)/4, $v; \
	DATA name<>+24(SB)/4, $v; \
	DATA name<>+28(SB)/4, $v; \
	GLOBL name<>(SB), RODATA|NOPTR, $32
AVX32(avxKeyByte0, 0x7)
AVX32(avxKeyByte1, 0x700)
AVX32(avxKeyByte2, 0x70000)
AVX32(avxTwos, 0x02020202)
#undef AVX32
#define AVXLANES(name, base) \
	DATA name<>+0(SB)/8, $(base+0x0101010100000000); \
	DATA name<>+8(SB)/8, $(base+0x0303030302020202); \
	DATA name<>+16(SB)/8, $(base+0x0505050504040404); \
	DATA name<>+24(SB)/8, $(base+0x0707070706060606); \
	GLOBL name<>(SB), RODATA|NOPTR, $32
AVXLANES(avxDigitBytes, 0)
AVXLANES(avxNoKeys, 0x7070707070707070)
#undef AVXLANES
DATA avxDigitBytes8<>+0(SB)/8, $0x0f0f0f0f08080808
DATA avxDigitBytes8<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL avxDigitBytes8<>(SB), RODATA|NOPTR, $16
DATA avxNoKeys8<>+0(SB)/8, $0x7f7f7f7f78787878
DATA avxNoKeys8<>+8(SB)/8, $0x7f7f7f7f7f7f7f7f
GLOBL avxNoKeys8<>(SB), RODATA|NOPTR, $16
