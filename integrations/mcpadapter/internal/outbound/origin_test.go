package outbound

import (
	"net/url"
	"testing"
)

// TestSameOrigin: SameOrigin(u, o) is OriginOf(u) == o for every shape of
// URL (case, default ports, IPv6 brackets, userinfo), and the check of
// every upstream request allocates nothing.
func TestSameOrigin(t *testing.T) {
	raws := []string{
		"http://127.0.0.1:8080/mcp", "https://Example.COM/mcp", "https://example.com:443/x",
		"HTTP://example.com", "http://[::1]:9/mcp", "https://[fe80::1%25eth0]/", "https://user:pw@host:8443/",
		"ws://host/", "https://host:80/", "http://h.example./",
	}
	var origins []string
	for _, raw := range raws {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		origins = append(origins, OriginOf(u))
	}
	for i, raw := range raws {
		u, _ := url.Parse(raw)
		for j, o := range origins {
			if got, want := SameOrigin(u, o), origins[i] == o; got != want {
				t.Errorf("SameOrigin(%q, %q) = %v, OriginOf says %v (%q)", raw, raws[j], got, want, origins[i])
			}
		}
	}
	if origins[1] != "https://example.com:443" || origins[4] != "http://[::1]:9" {
		t.Errorf("origins %q", origins)
	}
	u, _ := url.Parse("http://127.0.0.1:8080/mcp")
	if n := testing.AllocsPerRun(100, func() { SameOrigin(u, "http://127.0.0.1:8080") }); n != 0 {
		t.Errorf("SameOrigin allocates %v times, want 0", n)
	}
}
