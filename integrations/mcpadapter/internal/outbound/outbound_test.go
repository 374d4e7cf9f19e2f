package outbound

import (
	"errors"
	"net/url"
	"testing"
)

// TestOriginOf: one origin however the URL spells its default port or its
// host's case; another for any other scheme, host or port.
func TestOriginOf(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"https://api.example.com/mcp", "https://API.example.com:443/other?q=1", true},
		{"http://127.0.0.1/mcp", "http://127.0.0.1:80/", true},
		{"https://api.example.com/mcp", "http://api.example.com/mcp", false},
		{"https://api.example.com/mcp", "https://api.example.com:8443/mcp", false},
		{"https://api.example.com/mcp", "https://evil.example.com/mcp", false},
		{"https://api.example.com/mcp", "https://api.example.com.evil.example/mcp", false},
		{"http://[::1]:8080/mcp", "http://[::1]:8080/x", true},
	}
	for _, tt := range tests {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if got := OriginOf(a) == OriginOf(b); got != tt.same {
			t.Errorf("same origin %s, %s = %v (%s, %s), want %v", tt.a, tt.b, got, OriginOf(a), OriginOf(b), tt.same)
		}
	}
}

// TestCheckEndpoint: https anywhere, plain http only on loopback.
func TestCheckEndpoint(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://login.example.com/token": true,
		"http://127.0.0.1:8080/token":     true,
		"http://[::1]/token":              true,
		"http://localhost:9/token":        true,
		"http://192.0.2.10/token":         false,
		"http://login.example.com/token":  false,
		"http://127.0.0.1.evil.example/t": false,
		"javascript:alert(1)":             false,
		"/token":                          false,
		"ftp://127.0.0.1/token":           false,
	} {
		err := CheckEndpoint("token endpoint", raw)
		if (err == nil) != ok {
			t.Errorf("CheckEndpoint(%q) = %v, want ok=%v", raw, err, ok)
		}
		if err != nil && !errors.Is(err, ErrOutbound) {
			t.Errorf("CheckEndpoint(%q) = %v, not ErrOutbound", raw, err)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"localhost": true, "localhost:8931": true, "127.0.0.1": true, "127.9.8.7:80": true,
		"::1": true, "[::1]": true, "[::1]:8931": true, "::ffff:127.0.0.1": true,
		"rebind.evil.example": false, "rebind.evil.example:8931": false, "localhost.evil.example": false,
		"10.0.0.1:80": false, "[::2]:80": false, "": false, "0.0.0.0": false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
