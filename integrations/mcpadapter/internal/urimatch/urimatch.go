// Package urimatch compiles an upstream's resource templates (RFC 6570 URI
// templates, as the go-sdk matches its own) to the patterns of the URIs
// they describe, whatever the upstream lists: a template that does not
// compile, or would panic the compiler, describes none.
//
//	for _, re := range urimatch.Compile(templates) {
//		if re.MatchString(uri) { ... }
//	}
//
// It is internal to the module.
package urimatch

import (
	"regexp"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// maxTemplateBytes bounds an upstream's URI template.
const maxTemplateBytes = 4096

// Compile compiles URI templates (RFC 6570, as the go-sdk matches
// its own) to the patterns of the URIs they describe; a template that does
// not compile describes none.
func Compile(ts []*mcp.ResourceTemplate) []*regexp.Regexp {
	out := make([]*regexp.Regexp, 0, len(ts))
	for _, t := range ts {
		if t == nil || len(t.URITemplate) > maxTemplateBytes {
			continue
		}
		if re := templatePattern(t.URITemplate); re != nil {
			out = append(out, re)
		}
	}
	return out
}

// templatePattern compiles one template, or returns nil. uritemplate
// panics on a template whose pattern regexp refuses (an expression of
// over 1000 variables): the server chose it, and must not stop us.
func templatePattern(s string) (re *regexp.Regexp) {
	defer func() {
		if recover() != nil {
			re = nil
		}
	}()
	tmpl, err := uritemplate.New(s)
	if err != nil {
		return nil
	}
	return tmpl.Regexp()
}
