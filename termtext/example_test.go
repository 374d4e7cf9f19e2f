package termtext_test

import (
	"fmt"

	"github.com/agentadapter/agentadapter/termtext"
)

func ExampleLine() {
	// A tool name from an upstream that tries to retitle the window and
	// reverse what follows.
	fmt.Println(termtext.Line("echo\x1b]0;owned\a\u202etxt"))
	// Output: echo\x1b]0;owned\a\u202etxt
}

func ExampleBlock() {
	fmt.Println(termtext.Block("done\n\x1b[1A\x1b[2Kall tests passed"))
	// Output:
	// done
	// \x1b[1A\x1b[2Kall tests passed
}
