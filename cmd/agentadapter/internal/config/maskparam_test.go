package config

import (
	"strings"
	"testing"
)

// Mcp-Param-* header values are masked wherever text quotes them; their
// names and the rest of the text stay.
func TestMaskParamHeaders(t *testing.T) {
	for _, tc := range []struct{ in, secret, keep string }{
		{"Mcp-Param-Tenant: acme-7731", "acme-7731", "Mcp-Param-Tenant"},
		{"mcp-param-tenant=acme-7731 next", "acme-7731", "next"},
		{`calling "x": header mismatch: Mcp-Param-Tenant header value 'acme-7731' does not match body value`, "acme-7731", "does not match body value"},
		{`{"Mcp-Param-Tenant":"acme-7731","Other":"keep"}`, "acme-7731", `"Other":"keep"`},
		{"map[Mcp-Param-Tenant:[acme-7731] Accept:[*/*]]", "acme-7731", "Accept:[*/*]"},
		{"Mcp-Param-Account: =?base64?YWNtZS03NzMx?=", "YWNtZS03NzMx", "Mcp-Param-Account"},
	} {
		for name, f := range map[string]func(string) string{"MaskParamHeaders": MaskParamHeaders, "MaskText": MaskText} {
			got := f(tc.in)
			if strings.Contains(got, tc.secret) || !strings.Contains(got, tc.keep) {
				t.Errorf("%s(%q) = %q: want %q masked, %q kept", name, tc.in, got, tc.secret, tc.keep)
			}
		}
	}
	if s := "no headers here: region eu-west-1"; MaskText(s) != s {
		t.Errorf("MaskText changed %q", s)
	}
}
