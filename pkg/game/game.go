// Package game holds games in progress as the faces play them: an
// m,n,k-game (MNK) and a nine-board game (Nineboard), each with its board,
// the moves played, the side to move, why a move cannot be played, taking
// moves back, the result, and the replies and analyses of the players of
// pkg/player. The terminal (analyze play, analyze nineboard play) and the
// web (/play, /nineboard) keep only how they show a game and read a
// person's moves, so a game follows the same rules and gets the same
// replies in either.
//
// A game is not safe for concurrent use. Reply and Analyse only read it:
// a face that must not hold its lock through a search runs them on a
// Clone.
package game

// Reasons is the set of reasons a move cannot be played now; 0: it can. A
// move may have several (a taken cell of a board the side to move may not
// play in); each face says the one it finds most useful.
type Reasons uint8

// The reasons a move is refused.
const (
	Over       Reasons = 1 << iota // the game is over
	OffBoard                       // not a cell of the board
	Taken                          // the cell has a stone
	WrongBoard                     // nine-board: the side to move must play in another board
	Closed                         // nine-board: the move's board is won or full
)
