package mnk

// Zobrist is zobrist, for the tests of package mnk_test.
var Zobrist = zobrist
