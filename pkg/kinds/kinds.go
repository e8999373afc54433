// Package kinds links every job kind into a binary: coordinator, worker and
// analyze import it so that they all know the same kinds.
package kinds

import (
	// Each kind registers itself with pkg/tasks.
	_ "github.com/woprlabs/wopr/pkg/tasks/mnkjobs"
	_ "github.com/woprlabs/wopr/pkg/tasks/nineboardjobs"
	_ "github.com/woprlabs/wopr/pkg/tasks/sudokujobs"
)
