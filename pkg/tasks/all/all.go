// Package all links every job kind of wopr into a binary: the coordinator,
// the worker and analyze import it for its side effect, so that they all
// know the same kinds.
package all

import (
	// Each kind registers itself with pkg/tasks.
	_ "github.com/woprlabs/wopr/pkg/tasks/mnk"
	_ "github.com/woprlabs/wopr/pkg/tasks/nineboard"
	_ "github.com/woprlabs/wopr/pkg/tasks/sudoku"
)
