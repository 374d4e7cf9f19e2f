package transport

import (
	"fmt"
	"io"
	"net/url"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/outbound"
)

// TestClassifyPeerClosed: a POST refused because the server had closed its
// kept connection never reached it, as the go-sdk reports it (a "rejected
// by transport" error beside the url.Error); EOF after a write may have run.
func TestClassifyPeerClosed(t *testing.T) {
	sent := func(cause error) error {
		return fmt.Errorf("sending %q: %w: %w", "tools/call", &jsonrpc.Error{Code: CodeRejected, Message: "rejected by transport"},
			&url.Error{Op: "Post", URL: "http://127.0.0.1:1", Err: cause})
	}
	if got := Classify(sent(outbound.ErrPeerClosed), &Watch{}); got != NotSent {
		t.Errorf("Classify(ErrPeerClosed) = %v, want NotSent", got)
	}
	if got := Classify(sent(io.EOF), &Watch{}); got != Lost {
		t.Errorf("Classify(EOF) = %v, want Lost", got)
	}
}
