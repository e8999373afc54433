//go:build race

package race

// Enabled says whether the binary was built with -race.
const Enabled = true
