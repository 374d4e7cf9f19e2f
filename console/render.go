package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// page is what every template renders.
type page struct {
	Title, Nav       string
	Operator, CSRF   string
	Notice, Error    string
	Login, Anonymous bool
	User             bool // a user of Options.Users: no operator pages in the nav
	Tickets          []ticketView
	Standing         []standingView
	ApprovalsOff     bool
	Edit             *editView
	Ledger           *ledgerView
	Servers          []serverView
	ServersOff       bool
	Quarantine       []quarantineView
	PinDecisions     []recordView
	Launches         []launchView // stdio launches waiting for review (servers page)
	Connections      []connectionView
	ConnectionsOff   bool
}

func (c *Console) newPage(r *http.Request, nav, title string) *page {
	p := &page{Nav: nav, Title: title}
	if op := OperatorFromContext(r.Context()); op != nil {
		p.Operator, p.CSRF, p.User = op.Name, op.csrf, op.user
	}
	return p
}

var pageNames = []string{"login", "approvals", "pending", "edit", "ledger", "servers", "quarantine", "connections"}

func (c *Console) parseTemplates() error {
	funcs := template.FuncMap{
		"join": strings.Join,
		"dict": func(kv ...any) map[string]any {
			m := map[string]any{}
			for i := 0; i+1 < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		},
	}
	base, err := template.New("base").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html")
	if err != nil {
		return fmt.Errorf("console: templates: %w", err)
	}
	c.pages = map[string]*template.Template{}
	for _, n := range pageNames {
		t := template.Must(base.Clone())
		if n != "pending" { // defined in parts.html
			t, err = t.ParseFS(templateFS, "templates/"+n+".html")
		}
		if err != nil {
			return fmt.Errorf("console: template %s: %w", n, err)
		}
		c.pages[n] = t
	}
	return nil
}

func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, p *page) {
	var buf bytes.Buffer
	entry := "layout"
	if name == "pending" {
		entry = "pending"
	}
	if err := c.pages[name].ExecuteTemplate(&buf, entry, p); err != nil {
		c.logger.Error("console: rendering", "page", name, "err", err)
		http.Error(w, "console: the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

// pinDecision is the Args of a pin decision's ledger record: which
// definition was accepted or kept blocked.
type pinDecision struct {
	Server string `json:"server"`
	Remote string `json:"remote"`
	Pinned string `json:"pinned"`
	Got    string `json:"got"`
}

func (c *Console) pinRecord(q *mcpadapter.Quarantine, operator string) *ledger.Record {
	args, _ := json.Marshal(pinDecision{Server: q.Server, Remote: q.RemoteName, Pinned: q.Pinned, Got: q.Got})
	return &ledger.Record{
		Time: c.now(), Tool: q.Tool, Source: Source, Integration: Source, Approver: operator, Args: args,
		Message: fmt.Sprintf("server %s, tool %s: pinned %s, new %s", q.Server, q.RemoteName, q.Pinned, q.Got),
	}
}
