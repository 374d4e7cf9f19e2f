package urimatch

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzTemplates: an upstream chooses its URI templates and a client the
// URIs read: compiling and matching any of them neither panics nor hangs.
func FuzzTemplates(f *testing.F) {
	for _, s := range [][2]string{
		{"demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/text/1"},
		{"file:///{+path}", "file:///etc/passwd"},
		{"x://{a,b,c}{?q*}{#f}", "x://1,2,3?q=1"},
		{"{", "}"}, {"x://{%zz}", ""}, {"x://{a:999999}", "x://aaaa"},
		// uritemplate panics on this one (a regexp repeat over 1000).
		{"x://{" + strings.Repeat("a,", 1100) + "b}", "x://1"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, tmpl, uri string) {
		pats := Compile([]*mcp.ResourceTemplate{{URITemplate: tmpl}, nil})
		for _, p := range pats {
			p.MatchString(uri)
		}
	})
}
