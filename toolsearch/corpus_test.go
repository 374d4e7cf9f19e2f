package toolsearch_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/toolsearch"
)

// corpusTool is one definition of testdata/tools.json, written by
// testdata/gencorpus from the real servers.
type corpusTool struct {
	Server      string             `json:"server"`
	Name        string             `json:"name"`
	Title       string             `json:"title"`
	Description string             `json:"description"`
	InputSchema *jsonschema.Schema `json:"inputSchema"`
}

func echoHandler(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
	return adapter.TextResult("ran with " + string(args)), nil
}

// realSpecs returns the real tools as imported specs.
func realSpecs(tb testing.TB) []*adapter.Spec {
	tb.Helper()
	b, err := os.ReadFile("testdata/tools.json")
	if err != nil {
		tb.Fatal(err)
	}
	var ts []corpusTool
	if err := json.Unmarshal(b, &ts); err != nil {
		tb.Fatal(err)
	}
	if len(ts) < 70 {
		tb.Fatalf("testdata/tools.json holds %d tools", len(ts))
	}
	specs := make([]*adapter.Spec, len(ts))
	for i, t := range ts {
		specs[i] = &adapter.Spec{
			Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema,
			Source:  adapter.Source{Server: t.Server, RemoteName: t.Name, Trusted: true},
			Handler: echoHandler, HonorsContext: true,
		}
	}
	return specs
}

// domains replace the real tools' domain words in the near-duplicates: a
// duplicate reads like its original about something else (read_file
// becomes read_invoice, "the knowledge graph" "the ticket graph").
var domains = strings.Fields(`invoice ticket calendar bucket contact order shipment payment customer
	product cart coupon playlist song album video channel message thread email mailbox folder
	spreadsheet cell chart dashboard metric alert incident pipeline build deployment cluster pod
	container volume secret certificate domain record zone firewall route subnet queue topic
	stream table column index schema migration backup snapshot report survey form lead deal
	account budget expense receipt asset license device sensor reading forecast station trip
	booking flight hotel reservation recipe ingredient meal workout course lesson quiz grade
	student teacher patient appointment prescription claim policy vehicle driver parcel warehouse
	inventory supplier vendor contract clause invoice_line repository branch commit issue review
	release package artifact job schedule shift employee team project milestone sprint story task_card`)

// domainWords are the words of the real tools a duplicate swaps.
var domainWords = strings.Fields(`file files directory directories folder entity entities relation relations
	graph node nodes observation observations resource resources image environment roots sql query
	database thought thoughts number numbers sum prompt tool logging elicitation sampling text audio
	research message messages links operation progress input string question questions header
	region user name model task state job content capability hello log logs annotations metadata
	variables roots structured compute seconds error errors protocol confirmation prompts
	reference subscription updates edits lines contents pattern tree`)

// nearDuplicates returns n specs: the real ones, then generated
// near-duplicates of them, each on a made-up server, with the domain words
// of its name and text swapped for another domain's (deterministic).
func nearDuplicates(tb testing.TB, n int) []*adapter.Spec {
	specs := realSpecs(tb)
	real := len(specs)
	doms := freshDomains(tb, specs)
	for i := 0; len(specs) < n; i++ {
		o := specs[i%real]
		d := doms[(i/real*7+i%real)%len(doms)]
		swap := func(s string) string {
			for _, w := range domainWords {
				repl := d
				if strings.HasSuffix(w, "s") && !strings.HasSuffix(d, "s") {
					repl = d + "s"
				}
				s = replaceWord(s, w, repl)
			}
			return s
		}
		name := fmt.Sprintf("%s%d_%s", d, i/real, swap(o.Name))
		if len(name) > 64 {
			name = name[:64]
		}
		desc := swap(o.Description)
		if desc == o.Description {
			desc += " For the " + d + " service."
		}
		var in *jsonschema.Schema
		if o.InputSchema != nil {
			b, _ := json.Marshal(o.InputSchema)
			_ = json.Unmarshal([]byte(swap(string(b))), &in)
		}
		specs = append(specs, &adapter.Spec{
			Name: name, Title: swap(o.Title), Description: desc, InputSchema: in,
			Source:  adapter.Source{Server: fmt.Sprintf("%s-%d", d, i/real), RemoteName: o.Name, Trusted: true},
			Handler: echoHandler, HonorsContext: true,
		})
	}
	return specs
}

// freshDomains are the domains no real tool or labelled query mentions:
// a duplicate about invoices is a distractor, not a second right answer.
func freshDomains(tb testing.TB, specs []*adapter.Spec) []string {
	used := map[string]bool{}
	mark := func(text string) {
		for _, t := range toolsearch.Terms(text) {
			used[t] = true
		}
	}
	for _, s := range specs {
		d := toolsearch.DocumentOf(s)
		mark(d.Name + " " + d.Title + " " + d.Description)
		for _, a := range d.Args {
			mark(a.Name + " " + a.Description)
		}
	}
	for _, q := range queries(tb) {
		mark(q.query)
	}
	var out []string
	for _, d := range domains {
		if !slices.ContainsFunc(toolsearch.Terms(d), func(t string) bool { return used[t] }) {
			out = append(out, d)
		}
	}
	return out
}

// replaceWord replaces whole words (bounded by non-letters) of s.
func replaceWord(s, w, repl string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, w)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(w)
		before := i == 0 || !isLetter(s[i-1])
		after := end == len(s) || !isLetter(s[end])
		b.WriteString(s[:i])
		if before && after {
			b.WriteString(repl)
		} else {
			b.WriteString(w)
		}
		s = s[end:]
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// labelled is one query of testdata/queries.tsv.
type labelled struct {
	query string
	want  []string
}

func queries(tb testing.TB) []labelled {
	tb.Helper()
	f, err := os.Open("testdata/queries.tsv")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var qs []labelled
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, want, ok := strings.Cut(line, "\t")
		if !ok {
			tb.Fatalf("queries.tsv: no tab in %q", line)
		}
		qs = append(qs, labelled{q, strings.Split(want, ",")})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return qs
}
