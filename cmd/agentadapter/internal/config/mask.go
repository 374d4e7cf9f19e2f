package config

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// Masking is by structure, not only by name: a secret is found where it
// sits (a flag's value, a URL's user information or query, a DSN's
// password pair, a NAME=value whose name is a secret's), whatever the key
// of the env var or header that carries it. Every place the command prints
// configuration goes through these functions.

// mask replaces a masked value.
const mask = "xxxxx"

// secretKeys mark env, header, flag and query parameter names whose
// values are masked.
var secretKeys = append([]string{"key", "auth", "pass", "pwd", "bearer", "session", "dsn"}, ledger.DefaultSecretKeys()...)

// querySecretKeys are further query parameter names that carry secrets:
// pre-signed URLs (sig=, X-Amz-Signature, X-Amz-Credential) and
// OAuth's code.
var querySecretKeys = []string{"sig", "credential", "code"}

func isSecretName(k string) bool {
	k = normName(k)
	for _, s := range secretKeys {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

func normName(k string) string {
	return strings.ToLower(strings.NewReplacer("-", "", "_", "", ".", "", " ", "").Replace(k))
}

func isSecretQuery(k string) bool {
	if isSecretName(k) {
		return true
	}
	k = normName(k)
	for _, s := range querySecretKeys {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// MaskValue returns the value of the env var, header or flag called name
// as it may be printed: wholly masked when the name is a secret's,
// otherwise with the secrets its structure shows masked (see MaskText).
func MaskValue(name, value string) string {
	if value == "" {
		return value
	}
	if isSecretName(name) {
		return ledger.Redacted
	}
	return maskPair(value)
}

// maskPair masks a whole "NAME=value" (env's, docker's -e) or "Name:
// value" (curl's -H) whose name is a secret's, else what MaskText finds.
// Free text does not get these two rules: "auth: no tokens" is a message.
func maskPair(s string) string {
	if k, v, ok := strings.Cut(s, "="); ok && k != "" && v != "" && !strings.ContainsAny(k, " :/?&") && isSecretName(k) {
		return k + "=" + mask
	}
	if k, v, ok := strings.Cut(s, ":"); ok && k != "" && strings.HasPrefix(v, " ") && !strings.ContainsAny(k, " /=") && isSecretName(k) {
		return k + ": " + mask
	}
	return MaskText(s)
}

var (
	// dsnPairRE finds key=value pairs of a libpq or ODBC connection
	// string whose key names a secret: "host=db password='p w' ...".
	dsnPairRE = regexp.MustCompile(`(?i)\b([a-z_]*(?:password|passwd|pwd|secret|token|key)[a-z_]*)(\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s;&]+)`)
	// userinfoRE finds user:password@ before a host in a string that is
	// not a URL (MySQL's "user:pw@tcp(host)/db").
	userinfoRE = regexp.MustCompile(`^([^\s:@/]+):([^\s@/]+)@`)
	// bearerRE finds "Bearer X" and "Basic X" in free text.
	bearerRE = regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{8,}`)
	// urlRE finds URLs inside a longer string.
	urlRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]+`)
	// paramHeaderRE finds the value of an Mcp-Param-* header in free text:
	// "Mcp-Param-Region: x", "Mcp-Param-Region=x", and go-sdk's mismatch
	// error "Mcp-Param-Region header value 'x'".
	paramHeaderRE = regexp.MustCompile("(?i)(mcp-param-[!#$%&'*+.^_`|~0-9a-z-]+)(\"?\\s*[:=]\\s*\"?|\\s+header value ')((?:=\\?base64\\?[A-Za-z0-9+/=]*\\?=)|[^\\s'\",;]+)")
)

// MaskParamHeaders masks the values of Mcp-Param-* headers quoted in s.
// Those headers mirror tool arguments (a tenant, an account, a region;
// SEP-2243 x-mcp-header) for the HTTP layer; the logs and the ledger keep
// their names only.
func MaskParamHeaders(s string) string {
	if !strings.Contains(strings.ToLower(s), "mcp-param-") {
		return s
	}
	return paramHeaderRE.ReplaceAllString(s, "${1}${2}"+mask)
}

// MaskText masks the secrets a string's structure shows, wherever they
// sit in it (a log line, an error): the user information and secret
// query parameters of URLs, DSN password pairs, a "user:password@"
// prefix, bearer credentials, and Mcp-Param-* header values.
func MaskText(s string) string {
	s = MaskParamHeaders(s)
	if !strings.ContainsAny(s, "=@") && !strings.Contains(strings.ToLower(s), "bearer") && !strings.Contains(strings.ToLower(s), "basic") {
		return s // nothing to mask; most log values
	}
	s = urlRE.ReplaceAllStringFunc(s, MaskURL)
	s = dsnPairRE.ReplaceAllString(s, "${1}${2}"+mask)
	if !strings.Contains(s, "://") {
		s = userinfoRE.ReplaceAllString(s, "${1}:"+mask+"@")
	}
	s = bearerRE.ReplaceAllString(s, "${1}${2}"+mask)
	return s
}

// MaskURL masks a URL's user information (the password, or a user name
// standing alone, which is often a token: https://TOKEN@host) and the
// values of query parameters that carry secrets. A string that is not a
// URL with a host is returned as MaskText leaves it.
func MaskURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		if err != nil && strings.Contains(s, "@") {
			// Unparsable but credential-shaped: keep the scheme only.
			if scheme, _, ok := strings.Cut(s, "://"); ok {
				return scheme + "://" + mask
			}
		}
		return s
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), mask)
		} else {
			u.User = url.User(mask)
		}
	}
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			u.RawQuery = mask
		} else {
			changed := false
			for k := range q {
				if isSecretQuery(k) {
					q.Set(k, mask)
					changed = true
				}
			}
			if changed {
				u.RawQuery = q.Encode()
			}
		}
	}
	return u.String()
}

// MaskArgs returns a copy of a command's arguments with secrets masked:
// the value of a flag whose name is a secret's ("--api-key X",
// "--token=X", "-password X"), a secret's "NAME=value" or "Name: value",
// and whatever MaskText finds in the others.
// Single-letter flags are left alone: "-p" is a port as often as a
// password.
func MaskArgs(args []string) []string {
	out := make([]string, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, isFlag := flagName(a)
		switch {
		case isFlag && len(name) > 1 && isSecretName(name):
			if _, v, ok := strings.Cut(a, "="); ok && v != "" {
				out[i] = a[:len(a)-len(v)] + mask
			} else if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				out[i] = a
				out[i+1] = mask
				i++
			} else {
				out[i] = a
			}
		default:
			out[i] = maskPair(a)
		}
	}
	return out
}

// flagName returns the name of a "-name", "--name" or "--name=value"
// argument.
func flagName(a string) (string, bool) {
	if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
		return "", false
	}
	name := strings.TrimLeft(a, "-")
	name, _, _ = strings.Cut(name, "=")
	return name, name != ""
}

// MaskStore masks a store specification: a postgres URL's password, or
// a "postgres:host=... password=..." string's.
func MaskStore(s string) string {
	return MaskText(s)
}
