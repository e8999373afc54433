//go:build amd64 && !purego

package sudoku

import (
	"fmt"
	"slices"
	"testing"
)

// requireAsm skips t unless this processor has the extensions that the
// assembly path (asmPaths: "band", "triads", "triadsAVX2", "solution" or
// "solutionAVX2") uses, and
// names what it lacks; a test that passes counts as one of the path's
// (reportAsmPaths). A path's tests compare it with the Go wherever it runs, whether
// or not it is chosen there: the band assembly with PEXT is not chosen on
// AMD before Zen 3 (useBandNoPEXT), and is tested there.
func requireAsm(t testing.TB, path string) {
	t.Helper()
	i := slices.IndexFunc(asmPaths, func(p asmPath) bool { return p.path == path })
	if i < 0 {
		t.Fatalf("no assembly path %q", path)
	}
	if m := hostISA.missing(asmPaths[i].need); m != "" {
		t.Skipf("this processor lacks %s, which the %s assembly uses: nothing to compare with the Go", m, path)
	}
	markAsmTested(t, path)
}

// TestAsmGates: which assembly paths run (and are tested) and which are
// chosen, on the extensions of real processors; what is missing is named.
// A Zen 2 has BMI2 but a microcoded PEXT: its band assembly runs without
// PEXT (both are tested there).
func TestAsmGates(t *testing.T) {
	const (
		intel = "GenuineIntel"
		amd   = "AuthenticAMD"
	)
	bmi := isaBMI1 | isaBMI2 | isaPOPCNT
	skylakeSP := bmi | isaAVX2 | isaAVX512F | isaAVX512BW | isaAVX512VL
	iceLake := skylakeSP | isaAVX512VBMI | isaAVX512BITALG | isaGFNI
	for _, c := range []struct {
		name      string
		have      isa
		vendor    string
		signature uint32 // CPUID leaf 1's EAX
		// What each path misses ("" runs), whether the band assembly
		// is chosen, and whether without PEXT.
		band, triads, solution, columns, columnsAVX2 string
		bandChosen, noPEXT                           bool
	}{
		{"Intel Nehalem", isaPOPCNT, intel, 0x000106A5, "BMI1 and BMI2", "AVX2, AVX512F, AVX512BW, AVX512VL, AVX512VBMI, AVX512BITALG and GFNI", "AVX512F, AVX512BW and AVX512VL", "BMI1, BMI2 and AVX512F", "BMI1, BMI2 and AVX2", false, false},
		{"Intel Haswell", bmi | isaAVX2, intel, 0x000306C3, "", "AVX512F, AVX512BW, AVX512VL, AVX512VBMI, AVX512BITALG and GFNI", "AVX512F, AVX512BW and AVX512VL", "AVX512F", "", true, false},
		{"Intel Skylake-SP", skylakeSP, intel, 0x00050654, "", "AVX512VBMI, AVX512BITALG and GFNI", "", "", "", true, false},
		{"Intel Ice Lake", iceLake, intel, 0x000606A6, "", "", "", "", "", true, false},
		{"Intel Ice Lake, GODEBUG=cpu.bmi2=off", iceLake &^ isaBMI2, intel, 0x000606A6, "BMI2", "", "", "BMI2", "BMI2", false, false},
		{"AMD Zen 1", bmi | isaAVX2, amd, 0x00800F11, "", "AVX512F, AVX512BW, AVX512VL, AVX512VBMI, AVX512BITALG and GFNI", "AVX512F, AVX512BW and AVX512VL", "AVX512F", "", true, true},
		{"AMD Zen 2", bmi | isaAVX2, amd, 0x00830F10, "", "AVX512F, AVX512BW, AVX512VL, AVX512VBMI, AVX512BITALG and GFNI", "AVX512F, AVX512BW and AVX512VL", "AVX512F", "", true, true},
		{"AMD Zen 3", bmi | isaAVX2, amd, 0x00A20F10, "", "AVX512F, AVX512BW, AVX512VL, AVX512VBMI, AVX512BITALG and GFNI", "AVX512F, AVX512BW and AVX512VL", "AVX512F", "", true, false},
		{"AMD Zen 4", iceLake, amd, 0x00A60F12, "", "", "", "", "", true, false},
		{"no extensions", 0, amd, 0x00A60F12, "BMI1, BMI2 and POPCNT", "AVX2, AVX512F, AVX512BW, AVX512VL, AVX512VBMI, AVX512BITALG and GFNI", "AVX512F, AVX512BW and AVX512VL", "BMI1, BMI2, POPCNT and AVX512F", "BMI1, BMI2, POPCNT and AVX2", false, false},
	} {
		b, cx, d := vendorWords(c.vendor)
		got := []string{c.have.missing(bandAsmISA), c.have.missing(triadAsmISA), c.have.missing(solutionAsmISA),
			c.have.missing(colAVX512ISA), c.have.missing(colAVX2ISA)}
		want := []string{c.band, c.triads, c.solution, c.columns, c.columnsAVX2}
		for i, path := range []string{"band", "triads", "solution", "columns", "columnsAVX2"} {
			if got[i] != want[i] {
				t.Errorf("%s: the %s assembly misses %q, want %q", c.name, path, got[i], want[i])
			}
		}
		if chosen := c.have.missing(bandAsmISA) == ""; chosen != c.bandChosen {
			t.Errorf("%s: band assembly chosen %v, want %v", c.name, chosen, c.bandChosen)
		}
		if noPEXT := slowPEXTOn(b, cx, d, c.signature); noPEXT != c.noPEXT {
			t.Errorf("%s: band assembly without PEXT %v, want %v", c.name, noPEXT, c.noPEXT)
		}
	}
	t.Logf("this processor: %v", describeISA(hostISA))
}

// vendorWords is the vendor string as CPUID leaf 0 returns it in EBX, ECX
// and EDX.
func vendorWords(v string) (b, c, d uint32) {
	word := func(s string) uint32 { return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24 }
	return word(v[0:4]), word(v[8:12]), word(v[4:8])
}

// describeISA lists the extensions of s.
func describeISA(s isa) string {
	var names []string
	for i, name := range isaNames {
		if s&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	return fmt.Sprint(names)
}
