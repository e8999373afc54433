// Package pns is the proof-number solver of m,n,k-games (Solver): the value
// of a position of any board of package mnk, the value of each move, a
// principal variation, and a certificate of the value that ends the draws
// in pairing strategies (NewCertificate). Solvers on several goroutines may
// share a table (Table).
//
// The solver's source (pns.go, zones.go, matching.go, persist.go) is
// written against the names of set.go; package wide/pns compiles the same
// files, copied by go generate, for the boards of package wide (up to 128
// cells: 9x9 to 11x11).
package pns
