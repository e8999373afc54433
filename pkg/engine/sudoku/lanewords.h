// LANEWORDS puts the band words in lanes, for the AVX-512 kernels that
// take all the digits at once (triadScanAVX512 in triads_amd64.s,
// propagateAsm's colVector in bandasm_propagate.h): with f's words 0-15 in
// Z0 and 16-31 in Z1, word f[3d+b] goes to lane d of Z2+b for the digits
// of K1, the other lanes zeroed. Its index tables, ·laneWords0-2, are in
// triads_amd64.s.
#define LANEWORDS \
	VMOVDQU32	·laneWords0(SB), Z2; \
	VPERMI2D.Z	Z1, Z0, K1, Z2; \
	VMOVDQU32	·laneWords1(SB), Z3; \
	VPERMI2D.Z	Z1, Z0, K1, Z3; \
	VMOVDQU32	·laneWords2(SB), Z4; \
	VPERMI2D.Z	Z1, Z0, K1, Z4
