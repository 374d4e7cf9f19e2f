package console

import (
	"context"
	"net/http"
	"time"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
)

// Connections are the signed-in user's own sign-ins to the servers
// reached with each user's account (OAuth.PerCaller): the connections
// page lists them (server, issuer, expiry: never a token) and lets the
// user disconnect one. Only the console user's own subject is ever asked
// for. *oauth.SignIns implements it.
type Connections interface {
	// Connections lists subject's connections.
	Connections(ctx context.Context, subject string) ([]oauth.Connection, error)
	// Disconnect revokes subject's grant at server's authorization server
	// (when it has a revocation endpoint) and deletes the token.
	Disconnect(ctx context.Context, subject, server string) error
}

// connectionView is one row of the connections page.
type connectionView struct {
	Server, Issuer, Expiry, Scopes string
	Refreshable                    bool
}

func (c *Console) connectionsPage(w http.ResponseWriter, r *http.Request) {
	notice := ""
	if s := r.URL.Query().Get("disconnected"); s != "" {
		notice = "Disconnected " + truncate(s, 100) + "."
	}
	c.showConnections(w, r, http.StatusOK, notice, "")
}

func (c *Console) showConnections(w http.ResponseWriter, r *http.Request, status int, notice, errMsg string) {
	p := c.newPage(r, "connections", "Connections")
	p.Notice, p.Error = notice, errMsg
	p.ConnectionsOff = c.opts.Connections == nil
	op := OperatorFromContext(r.Context())
	if c.opts.Connections != nil && op != nil && op.Name != AnonymousOperator {
		conns, err := c.opts.Connections.Connections(r.Context(), op.Name)
		if err != nil && p.Error == "" {
			p.Error = "Your connections could not be read: " + truncate(err.Error(), 300)
		}
		for _, cn := range conns {
			v := connectionView{Server: cn.Server, Issuer: cn.Issuer, Refreshable: cn.Refreshable, Expiry: "none given"}
			if !cn.Expiry.IsZero() {
				v.Expiry = cn.Expiry.UTC().Format(time.RFC3339)
			}
			for i, s := range cn.Scopes {
				if i > 0 {
					v.Scopes += " "
				}
				v.Scopes += s
			}
			p.Connections = append(p.Connections, v)
		}
	}
	c.render(w, r, status, "connections", p)
}

func (c *Console) disconnect(w http.ResponseWriter, r *http.Request) {
	op := OperatorFromContext(r.Context())
	if c.opts.Connections == nil || op == nil || op.Name == AnonymousOperator {
		http.Error(w, "console: no connections here", http.StatusNotFound)
		return
	}
	server := r.PostForm.Get("server")
	if err := c.opts.Connections.Disconnect(r.Context(), op.Name, server); err != nil {
		c.logger.Error("console: disconnecting", "server", server, "err", err)
		c.showConnections(w, r, http.StatusBadGateway, "", "Disconnecting "+truncate(server, 100)+": "+truncate(err.Error(), 300))
		return
	}
	seeOther(w, "connections?disconnected="+urlQueryEscape(server))
}
