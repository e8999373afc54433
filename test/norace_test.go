//go:build !race

package test

// raceDetector says whether this test binary is built with -race.
const raceDetector = false
