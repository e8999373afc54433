//go:build !linux

package forward

// newSlots returns n zeroed slots.
func newSlots(n int) []slot { return make([]slot, n) }

// freeSlots drops the slots of newSlots, for the collector.
func freeSlots([]slot) {}
