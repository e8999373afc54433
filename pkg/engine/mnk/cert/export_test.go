package cert

import "github.com/woprlabs/wopr/pkg/engine/mnk"

// SetOnSkip sets the hook that Verify calls with each move it does not
// follow (see onSkip); nil removes it.
func SetOnSkip(f func(p mnk.Position, cell int, x bool)) { onSkip = f }

// SetWonZoneEmpty makes WonZone empty (wrong: see wonZoneEmpty).
func SetWonZoneEmpty(on bool) { wonZoneEmpty = on }
