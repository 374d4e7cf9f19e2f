//go:build !linux

package outbound

import "net"

// checkConn returns c: outside Linux a kept connection is not checked
// before a request is written on it (see ErrPeerClosed).
func checkConn(c net.Conn) net.Conn { return c }
