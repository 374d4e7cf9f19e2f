package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/outbound"
)

// Loopback returns an AuthorizationHandler for command-line programs
// (RFC 8252 §7.3): it listens on the redirect URL's loopback address,
// calls open with the authorization URL (nil prints it to standard error
// for the user to open), and returns the code of the first request to the
// redirect path. The redirect URL must be http on 127.0.0.1, [::1] or
// localhost, with a port.
func Loopback(open func(url string) error) AuthorizationHandler {
	return func(ctx context.Context, req *AuthorizationRequest) (*auth.AuthorizationResult, error) {
		ru, err := url.Parse(req.RedirectURL)
		if err != nil || ru.Scheme != "http" || ru.Port() == "" {
			return nil, fmt.Errorf("loopback authorization needs an http redirect URL with a port, not %q", req.RedirectURL)
		}
		switch ru.Hostname() {
		case "127.0.0.1", "::1", "localhost":
		default:
			return nil, fmt.Errorf("loopback authorization needs a loopback redirect URL, not %q", req.RedirectURL)
		}
		var lc net.ListenConfig
		ln, err := lc.Listen(ctx, "tcp", ru.Host)
		if err != nil {
			return nil, fmt.Errorf("listening for the authorization redirect: %w", err)
		}
		type answer struct {
			res *auth.AuthorizationResult
			err error
		}
		ch := make(chan answer, 1)
		path := ru.Path
		if path == "" {
			path = "/"
		}
		mux := http.NewServeMux()
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			a := answer{res: &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}}
			if e := q.Get("error"); e != "" {
				a = answer{err: fmt.Errorf("authorization refused: %s %s", outbound.Truncate(e, 100), outbound.Truncate(q.Get("error_description"), 300))}
			} else if a.res.Code == "" {
				http.Error(w, "no authorization code in this request", http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			if a.err != nil {
				fmt.Fprintln(w, "Authorization failed. You can close this window.")
			} else {
				fmt.Fprintln(w, "Authorized. You can close this window.")
			}
			select {
			case ch <- a:
			default: // answered already
			}
		})
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			srv.Shutdown(sctx)
		}()
		if open == nil {
			open = func(u string) error {
				_, err := fmt.Fprintf(os.Stderr, "To authorize %s, open this URL in a browser:\n\n  %s\n\n", req.Server, u)
				return err
			}
		}
		if err := open(req.URL); err != nil {
			return nil, fmt.Errorf("sending the user to the authorization server: %w", err)
		}
		select {
		case a := <-ch:
			return a.res, a.err
		case <-ctx.Done():
			return nil, errors.Join(errors.New("waiting for the user to authorize"), ctx.Err())
		}
	}
}
