package rating

import "math/bits"

// Scan memory. Most steps are singles, and before every harder step the
// solver scans each easier technique again, which mostly finds nothing
// where nothing changed. Several techniques look at one digit's places
// at a time (locked candidates, fish, strong links: what they find for
// digit d depends only on d's places), or at one unit's candidates at a
// time (naked and hidden sets). A digit or unit unchanged since such a technique's last scan
// that found nothing anywhere holds nothing for it now either, so the
// scan skips it. The step found is the one a full scan finds: the parts
// skipped hold none.

// scan names a technique's (or a pass's) memory.
type scan uint8

const (
	scanDirectLocking scan = iota
	scanLocking
	scanDirectHidden2
	scanDirectHidden3
	scanNaked2
	scanNaked3
	scanNaked4
	scanHidden2
	scanHidden3
	scanHidden4
	scanFish2
	scanFish3
	scanFish4
	scanLinks2
	scanLinks3
	scanLinks4
	numScans
)

// scanMemory holds when each digit's places and each unit's candidates
// last changed, and when each scan last found nothing, on a clock that
// ticks at every change.
type scanMemory struct {
	now   uint32
	digit [9]uint32
	unit  [27]uint32
	clean [numScans]uint32
	// cleanDigit[k][d]: when scan k last found nothing for digit d+1,
	// though it found something for another.
	cleanDigit [numScans][9]uint32
	// off makes every scan look everywhere (the tests' reference).
	off bool
}

// reset forgets every scan: everything counts as changed.
func (m *scanMemory) reset() {
	m.now = 1
	for d := range m.digit {
		m.digit[d] = 1
	}
	for u := range m.unit {
		m.unit[u] = 1
	}
	m.clean = [numScans]uint32{}
	m.cleanDigit = [numScans][9]uint32{}
}

// changed records that cell i lost the digits m (bit d-1 for d).
func (m *scanMemory) changed(i int, digits uint16) {
	m.now++
	for _, u := range cellUnit[i] {
		m.unit[u] = m.now
	}
	for ; digits != 0; digits &= digits - 1 {
		m.digit[bits.TrailingZeros16(digits)] = m.now
	}
}

// newDigits returns the digits (bit d-1 for d) whose places changed since
// scan k last found nothing.
func (m *scanMemory) newDigits(k scan) uint16 {
	if m.off {
		return 1<<9 - 1
	}
	var n uint16
	for d, t := range m.digit {
		if t > m.clean[k] && t > m.cleanDigit[k][d] {
			n |= 1 << d
		}
	}
	return n
}

// newUnits returns the units (bit u) whose candidates changed since scan
// k last found nothing.
func (m *scanMemory) newUnits(k scan) uint32 {
	if m.off {
		return 1<<27 - 1
	}
	var n uint32
	for u, t := range m.unit {
		if t > m.clean[k] {
			n |= 1 << u
		}
	}
	return n
}

// found nothing: scan k has just looked everywhere and found no step.
func (m *scanMemory) nothing(k scan) { m.clean[k] = m.now }

// nothingFor: scan k has just found nothing for digit d.
func (m *scanMemory) nothingFor(k scan, d int) { m.cleanDigit[k][d-1] = m.now }
