// Package pns is the proof-number solver of package mnk/pns for the boards
// of package wide, up to 128 cells (9x9 to 11x11): the same search, rules,
// relevance zones and set matching, compiled from the same source
// (pns.go, zones.go, matching.go and persist.go, copied by go generate)
// against the 128-bit sets of set.go. On a board both packages take it
// searches the same nodes in the same order (TestAgreesWithPNS). Its
// tables are saved and loaded as package mnk/pns's (Table.WriteTo,
// ReadFrom); it has no certificates.
package pns

//go:generate go run ../../internal/copysrc -from ../../pns pns.go zones.go matching.go persist.go
