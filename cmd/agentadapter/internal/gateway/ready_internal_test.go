package gateway

import "testing"

// graphic: /readyz quotes an upstream's error text; a control, C1 or bidi
// character in it reaches no terminal raw, and its length is bounded.
func TestGraphic(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"connection refused", 64, "connection refused"},
		{"bad\x1b[31m red", 64, `bad\u001b[31m red`},
		{"evil\u202egnp.exe", 64, `evil\u202egnp.exe`},
		{"c1\u009bq", 64, `c1\u009bq`},
		{"tab\tnl\n", 64, `tab\u0009nl\u000a`},
		{"aaaaaaaaaaaa", 8, "aaaaaaaa…"},
		{"ééééé", 9, "éééé…"},
		{"ab\x1b", 4, "ab…"},
	}
	for _, tt := range tests {
		if got := graphic(tt.in, tt.n); got != tt.want {
			t.Errorf("graphic(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
