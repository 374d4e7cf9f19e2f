package gateway

import (
	"net"
	"testing"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// TestLoopbackAddr: the listener address check is mcpadapter.IsLoopback
// of the address's text, for IPv4, IPv6, IPv4-mapped and unspecified
// addresses and for a non-TCP address, without formatting a TCP one.
func TestLoopbackAddr(t *testing.T) {
	addrs := []net.Addr{
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80}, &net.TCPAddr{IP: net.IP{127, 9, 9, 9}, Port: 1},
		&net.TCPAddr{IP: net.IPv6loopback, Port: 443}, &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 80},
		&net.TCPAddr{IP: net.ParseIP("::ffff:127.0.0.1"), Port: 1}, &net.TCPAddr{IP: net.ParseIP("fe80::1"), Zone: "eth0", Port: 1},
		&net.TCPAddr{Port: 8080}, &net.UnixAddr{Name: "/tmp/s", Net: "unix"}, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5},
	}
	for _, a := range addrs {
		if got, want := loopbackAddr(a), mcpadapter.IsLoopback(a.String()); got != want {
			t.Errorf("loopbackAddr(%v) = %v, IsLoopback(%q) = %v", a, got, a.String(), want)
		}
	}
	a := addrs[0]
	if n := testing.AllocsPerRun(100, func() { loopbackAddr(a) }); n != 0 {
		t.Errorf("loopbackAddr allocates %v times, want 0", n)
	}
}
