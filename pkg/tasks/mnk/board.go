package mnk

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/search"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// The board rules of the kinds, in one place: analyze's commands and the
// web's jobs API read a board and k in their own forms (flags, JSON fields)
// and leave every check to the kind (the parameters' Spec at submit,
// Validate in Plan), so that both refuse a board with the same message.

// DefaultRows and DefaultCols are the board of a job that gives none:
// tic-tac-toe's.
const DefaultRows, DefaultCols = 3, 3

// BigDefaultK is the k of a board of more than mnk.MaxSide on a side when
// none is given: five in a row, as in gomoku.
const BigDefaultK = 5

// DefaultK is the k of a rows x cols board when none is given: the shorter
// side, and at most BigDefaultK on a board of more than mnk.MaxSide on a
// side.
func DefaultK(rows, cols int) int {
	k := min(rows, cols)
	if rows > mnk.MaxSide || cols > mnk.MaxSide {
		k = min(k, BigDefaultK)
	}
	return k
}

// boardRE is a board as a user writes it. Four digits a side are plenty:
// anything longer is refused as a number no board has.
var boardRE = regexp.MustCompile(`^([0-9]{1,4})x([0-9]{1,4})$`)

// ParseBoard reads a board written "RxC": R rows and C columns. It reads
// the form only; the size is the kinds' to check (NewGame, Validate).
func ParseBoard(s string) (rows, cols int, err error) {
	m := boardRE.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, fmt.Errorf("%q: want RxC, e.g. 4x5", s)
	}
	rows, _ = strconv.Atoi(m[1])
	cols, _ = strconv.Atoi(m[2])
	return rows, cols, nil
}

// sizeRule says what sizes a board of up to maxSide on a side takes, for
// the board "RxC" that does not fit.
func sizeRule(rows, cols, maxSide int) string {
	return fmt.Sprintf("%dx%d: rows and columns must be 1 to %d", rows, cols, maxSide)
}

// NewGame returns the game of a rows x cols board, of up to mnk.MaxSide on
// a side, with k in a row. Its errors wrap tasks.ErrInvalid and say what is
// allowed (and that mnk search takes a bigger board): they are the
// messages of every kind's board.
func NewGame(rows, cols, k int) (*mnk.Game, error) {
	g, err := mnk.New(rows, cols, k)
	if errors.Is(err, mnk.ErrBoardSize) {
		msg := "board " + sizeRule(rows, cols, mnk.MaxSide)
		if rows > 0 && cols > 0 && rows <= search.MaxBigSide && cols <= search.MaxBigSide {
			msg += fmt.Sprintf(" (mnk search takes boards up to %dx%d)", search.MaxBigSide, search.MaxBigSide)
		}
		return nil, tasks.Invalid("%s", msg)
	}
	if err != nil {
		return nil, tasks.Invalid("%v", err)
	}
	return g, nil
}

// newBigGame is NewGame for a board of up to search.MaxBigSide on a side.
func newBigGame(rows, cols, k int) (*search.BigGame, error) {
	g, err := search.NewBig(rows, cols, k)
	if errors.Is(err, mnk.ErrBoardSize) {
		return nil, tasks.Invalid("board %s", sizeRule(rows, cols, search.MaxBigSide))
	}
	if err != nil {
		return nil, tasks.Invalid("%v", err)
	}
	return g, nil
}

// newGame is NewGame with the size limit of what a job does: maxCells > 0
// limits the cells (for "exact counting", say), naming boards that fit.
func newGame(rows, cols, k, maxCells int, what, fits string) (*mnk.Game, error) {
	g, err := NewGame(rows, cols, k)
	if err != nil {
		return nil, err
	}
	if maxCells > 0 && g.Cells() > maxCells {
		return nil, tasks.Invalid("board %dx%d has %d cells: %s is limited to boards of at most %d cells (e.g. %s)",
			rows, cols, g.Cells(), what, maxCells, fits)
	}
	return g, nil
}

// spec is the spec of a job of kind with the parameters p (checked by
// the caller), refused if it has more tasks than a job may have.
func spec(kind string, p any) (tasks.Spec, error) {
	params, err := json.Marshal(p)
	if err != nil {
		return tasks.Spec{}, fmt.Errorf("encode the parameters of %s: %w", kind, err)
	}
	sp := tasks.Spec{Kind: kind, Params: params}
	if err := tasks.CheckSpec(sp); err != nil {
		return tasks.Spec{}, err
	}
	return sp, nil
}
