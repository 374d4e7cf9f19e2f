// Package old is where the names used to live.
package old

// Current is the new name of Legacy, in the same package.
type Current struct{ N int }
