//go:build race

package console_test

const raceEnabled = true
