package ledger

import (
	"encoding/json"

	"github.com/agentadapter/agentadapter/adapter/internal/redact"
)

// The executor masks secrets in the arguments it hands its ledger (see
// adapter.ExecutorOptions.Redact and SecretKeys); a ledger stores what it
// is given. These are the masking rules it applies.

// DefaultSecretKeys returns the names whose values the ledger masks by
// default: a key matches when its normalised form (lower case, without
// '-', '_', '.' and spaces) contains one of them, so "X-Api-Key",
// "private_key", "PrivateKey" and "client.secret" all match. The slice is
// a copy: the defaults cannot be changed from outside.
func DefaultSecretKeys() []string { return redact.DefaultKeys() }

// Redacted replaces masked values.
const Redacted = redact.Redacted

// RedactKeys returns a redaction function for adapter.ExecutorOptions.Redact
// that masks, at any depth of the decoded arguments (escapes resolved):
//   - the value of every object key whose normalised name contains one of
//     keys (normalised the same way, see [DefaultSecretKeys]);
//   - the "value" of a name/value pair whose name is such a key, as in
//     {"name":"Authorization","value":"Bearer …"};
//   - the user information of URLs in strings (https://user:pass@host).
//
// Arguments that do not parse are replaced by their size and SHA-256:
// {"unparsable":{"bytes":N,"sha256":"…"}}, never their text.
func RedactKeys(keys ...string) func(tool string, args json.RawMessage) json.RawMessage {
	return redact.Keys(keys...)
}
