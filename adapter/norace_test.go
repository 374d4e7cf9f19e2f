//go:build !race

package adapter_test

// racePoolMargin: see TestAllocs.
const racePoolMargin = 0
