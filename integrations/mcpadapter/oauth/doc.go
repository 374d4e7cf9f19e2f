// Package oauth is the OAuth client of the MCP import: it obtains,
// refreshes and stores the tokens of a server reached over streamable
// HTTP, with the authorization code grant (PKCE, client ID metadata
// documents, pre-registered or dynamically registered clients), client
// credentials, enterprise-managed authorization or workload identity, and
// DPoP-bound tokens if asked. With [Config.PerCaller] each caller is
// reached with a token of its own: its stored sign-in, or with
// [TokenExchange] its verified inbound token exchanged (RFC 8693) for one
// for the server; the inbound verifier hands that token over with
// [WithSubjectToken].
//
//	srv := mcpadapter.Server{Name: "docs", URL: "https://docs.example/mcp",
//		OAuth: &oauth.Config{Tokens: token.NewFileStore(path)}}
//	err := mgr.Connect(ctx, srv)
//
// A [Config] is usually given to the Manager of package mcpadapter, which
// makes its [Handler]; [NewHandler] makes one for a transport of your own.
//
// # Security
//
// Access and refresh tokens are never logged and never appear in an error.
// Client credentials, and a caller's subject token, go only to the configured issuer, else to an
// authorization server on the resource's own origin; a refusal wraps
// mcpadapter.ErrOutbound.
package oauth
