package oauth

import "testing"

// TestIssuerPolicy: a pin admits its issuer only; without one, credentials
// stay on the resource's origin and a public client goes where it is sent.
func TestIssuerPolicy(t *testing.T) {
	const resource = "https://mcp.example.com/mcp"
	tests := []struct {
		name string
		p    issuerPolicy
		as   string
		ok   bool
	}{
		{"PinMatches", issuerPolicy{resource: resource, pin: "https://login.example.com", credentials: true}, "https://login.example.com/", true},
		{"PinOther", issuerPolicy{resource: resource, pin: "https://login.example.com"}, "https://evil.example", false},
		{"PinNotResourceOrigin", issuerPolicy{resource: resource, pin: "https://login.example.com", credentials: true}, "https://mcp.example.com", false},
		{"CredentialsSameOrigin", issuerPolicy{resource: resource, credentials: true}, "https://mcp.example.com/tenant", true},
		{"CredentialsForeign", issuerPolicy{resource: resource, credentials: true}, "https://login.example.com", false},
		{"CredentialsOtherPort", issuerPolicy{resource: resource, credentials: true}, "https://mcp.example.com:8443", false},
		{"PublicForeign", issuerPolicy{resource: resource}, "https://login.example.com", true},
	}
	for _, tt := range tests {
		err := tt.p.check(tt.as)
		if (err == nil) != tt.ok {
			t.Errorf("%s: check(%q) = %v, want ok=%v", tt.name, tt.as, err, tt.ok)
		}
	}
}
