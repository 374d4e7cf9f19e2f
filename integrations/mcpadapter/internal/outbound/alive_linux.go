//go:build linux

package outbound

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// checkConn returns c checked before each write (see ErrPeerClosed), if
// it is a TCP connection.
func checkConn(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	return &checkedConn{Conn: c, raw: raw}
}

type checkedConn struct {
	net.Conn
	raw syscall.RawConn
}

func (c *checkedConn) Write(p []byte) (int, error) {
	if c.peerClosed() {
		return 0, ErrPeerClosed
	}
	return c.Conn.Write(p)
}

// peerClosed reports whether the kernel has the peer's FIN (CLOSE_WAIT)
// or RST (CLOSE) for the connection: whatever is written now reaches no
// handler. A TLS close_notify or an unsolicited response waiting unread
// does not hide it, as it would from a peek at the data.
func (c *checkedConn) peerClosed() bool {
	closed := false
	_ = c.raw.Control(func(fd uintptr) {
		info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		closed = err == nil && (info.State == unix.BPF_TCP_CLOSE_WAIT || info.State == unix.BPF_TCP_CLOSE)
	})
	return closed
}
