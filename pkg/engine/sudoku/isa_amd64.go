//go:build amd64 && !purego

package sudoku

import (
	"strings"

	"golang.org/x/sys/cpu"
)

// An isa is a set of instruction set extensions: those a processor has,
// or those an assembly path uses. Whether a path can run is a question
// of its instructions alone, asked by its tests too; whether it is chosen
// may ask more (useBandNoPEXT takes processors with a slow PEXT to a band
// assembly without it).
type isa uint16

// The extensions the assembly uses, beyond amd64's baseline (SSE2).
const (
	isaBMI1 isa = 1 << iota
	isaBMI2
	isaPOPCNT
	isaAVX2
	isaAVX512F
	isaAVX512BW
	isaAVX512VL
	isaAVX512VBMI
	isaAVX512BITALG
	isaGFNI // as AVX-512 runs it (cpu.X86.HasAVX512GFNI)
)

// isaNames are the extensions' names, in the order of their bits.
var isaNames = [...]string{"BMI1", "BMI2", "POPCNT", "AVX2", "AVX512F", "AVX512BW", "AVX512VL", "AVX512VBMI", "AVX512BITALG", "GFNI"}

// hostISA is what this processor has, as golang.org/x/sys/cpu reads it
// (AVX-512 only where the operating system saves its registers; GODEBUG
// cpu.bmi2=off and the like take extensions away).
var hostISA = isaOf(map[isa]bool{
	isaBMI1: cpu.X86.HasBMI1, isaBMI2: cpu.X86.HasBMI2, isaPOPCNT: cpu.X86.HasPOPCNT,
	isaAVX2: cpu.X86.HasAVX2, isaAVX512F: cpu.X86.HasAVX512F, isaAVX512BW: cpu.X86.HasAVX512BW,
	isaAVX512VL: cpu.X86.HasAVX512VL, isaAVX512VBMI: cpu.X86.HasAVX512VBMI,
	isaAVX512BITALG: cpu.X86.HasAVX512BITALG, isaGFNI: cpu.X86.HasAVX512GFNI,
})

// isaOf is the set of the extensions marked true.
func isaOf(has map[isa]bool) isa {
	var s isa
	for x, ok := range has {
		if ok {
			s |= x
		}
	}
	return s
}

// missing names the extensions of need that have lacks ("BMI2",
// "AVX512VBMI, AVX512BITALG and GFNI"), or returns "" if it has them all.
func (have isa) missing(need isa) string {
	var names []string
	for i, name := range isaNames {
		if need&^have&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
