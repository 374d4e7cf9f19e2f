package testpeers

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A Browser is one user's browser for the sign-in tests: a cookie jar,
// following redirects, and, while [Browser.SignIn] asks it to, stopping
// before a redirect to the gateway's callback.
type Browser struct {
	t    testing.TB
	c    *http.Client
	stop string // a URL prefix not to follow a redirect to
}

// NewBrowser returns a browser with an empty cookie jar.
func NewBrowser(tb testing.TB) *Browser {
	jar, _ := cookiejar.New(nil)
	b := &Browser{t: tb}
	b.c = &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if b.stop != "" && strings.HasPrefix(req.URL.String(), b.stop) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	return b
}

var formAction = regexp.MustCompile(`<form[^>]*action="([^"]+)"`)

// Do makes a GET (form nil) or a form POST and returns the final status,
// body and URL (a redirect's target when it stopped before one).
func (b *Browser) Do(method, u string, form url.Values) (int, string, *url.URL) {
	b.t.Helper()
	var resp *http.Response
	var err error
	if method == http.MethodPost {
		resp, err = b.c.PostForm(u, form)
	} else {
		resp, err = b.c.Get(u)
	}
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	final := resp.Request.URL
	if loc := resp.Header.Get("Location"); loc != "" && resp.StatusCode/100 == 3 {
		final, _ = resp.Request.URL.Parse(loc)
	}
	return resp.StatusCode, string(body), final
}

// SignIn opens a gateway start page, confirms it, logs in at oidc-provider
// (its development login form) as login and consents. With stopAtCallback
// it returns the callback URL (callbackPrefix...) the authorization server
// redirected to, unvisited; otherwise the gateway's final page.
func (b *Browser) SignIn(start, login, callbackPrefix string, stopAtCallback bool) (status int, body string, callback *url.URL) {
	b.t.Helper()
	if stopAtCallback {
		b.stop = callbackPrefix
		defer func() { b.stop = "" }()
	}
	status, body, at := b.Do(http.MethodGet, start, nil)
	if status != http.StatusOK {
		return status, body, nil
	}
	state := regexp.MustCompile(`name="state" value="([^"]+)"`).FindStringSubmatch(body)
	if state == nil {
		b.t.Fatalf("start page without a form: %s", body)
	}
	action := formAction.FindStringSubmatch(body)
	next, _ := at.Parse(html.UnescapeString(action[1]))
	status, body, at = b.Do(http.MethodPost, next.String(), url.Values{"state": {html.UnescapeString(state[1])}})
	for range 4 { // the login form, then consent
		if strings.HasPrefix(at.String(), callbackPrefix) {
			break
		}
		m := formAction.FindStringSubmatch(body)
		if m == nil {
			b.t.Fatalf("%s: no form at %s (%d): %.500s", login, at, status, body)
		}
		next, _ := at.Parse(html.UnescapeString(m[1]))
		v := url.Values{"prompt": {"login"}, "login": {login}, "password": {"x"}}
		if strings.Contains(body, `value="consent"`) {
			v = url.Values{"prompt": {"consent"}}
		}
		status, body, at = b.Do(http.MethodPost, next.String(), v)
	}
	return status, body, at
}

// NoRedirects makes b follow no redirect: [Browser.Do] returns each one.
func (b *Browser) NoRedirects() {
	b.c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
}
