package mcpadapter

import (
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// Pin is the old name of [pin.Pin].
//
// Deprecated: use [pin.Pin]; go fix -inline rewrites it.
//
//go:fix inline
type Pin = pin.Pin

// PinStore is the old name of [pin.Store].
//
// Deprecated: use [pin.Store]; go fix -inline rewrites it.
//
//go:fix inline
type PinStore = pin.Store

// MemoryPinStore is the old name of [pin.MemoryStore].
//
// Deprecated: use [pin.MemoryStore]; go fix -inline rewrites it.
//
//go:fix inline
type MemoryPinStore = pin.MemoryStore

// NewMemoryPinStore is the old name of [pin.NewMemoryStore].
//
// Deprecated: use [pin.NewMemoryStore]; go fix -inline rewrites it.
//
//go:fix inline
func NewMemoryPinStore(pins map[string]string) *pin.MemoryStore { return pin.NewMemoryStore(pins) }

// PinKey is the old name of [pin.Key].
//
// Deprecated: use [pin.Key]; go fix -inline rewrites it.
//
//go:fix inline
func PinKey(server, remoteName string) string { return pin.Key(server, remoteName) }

// ErrDefinitionChanged is the old name of [pin.ErrDefinitionChanged].
//
// Deprecated: use [pin.ErrDefinitionChanged].
var ErrDefinitionChanged = pin.ErrDefinitionChanged

// Launch is the old name of [pin.Launch].
//
// Deprecated: use [pin.Launch]; go fix -inline rewrites it.
//
//go:fix inline
type Launch = pin.Launch

// LaunchEnv is the old name of [pin.LaunchEnv].
//
// Deprecated: use [pin.LaunchEnv]; go fix -inline rewrites it.
//
//go:fix inline
type LaunchEnv = pin.LaunchEnv

// PendingLaunch is the old name of [pin.PendingLaunch].
//
// Deprecated: use [pin.PendingLaunch]; go fix -inline rewrites it.
//
//go:fix inline
type PendingLaunch = pin.PendingLaunch

// LaunchKey is the old name of [pin.LaunchKey].
//
// Deprecated: use [pin.LaunchKey]; go fix -inline rewrites it.
//
//go:fix inline
func LaunchKey(server string) string { return pin.LaunchKey(server) }

// NewLaunch is the old name of [pin.NewLaunch].
//
// Deprecated: use [pin.NewLaunch]; go fix -inline rewrites it.
//
//go:fix inline
func NewLaunch(command string, args []string, env map[string]string, dir string) (*pin.Launch, error) {
	return pin.NewLaunch(command, args, env, dir)
}

// ErrLaunchChanged is the old name of [pin.ErrLaunchChanged].
//
// Deprecated: use [pin.ErrLaunchChanged].
var ErrLaunchChanged = pin.ErrLaunchChanged

// Token is the old name of [token.Token].
//
// Deprecated: use [token.Token]; go fix -inline rewrites it.
//
//go:fix inline
type Token = token.Token

// TokenKey is the old name of [token.Key].
//
// Deprecated: use [token.Key]; go fix -inline rewrites it.
//
//go:fix inline
type TokenKey = token.Key

// TokenStore is the old name of [token.Store].
//
// Deprecated: use [token.Store]; go fix -inline rewrites it.
//
//go:fix inline
type TokenStore = token.Store

// MemoryTokenStore is the old name of [token.MemoryStore].
//
// Deprecated: use [token.MemoryStore]; go fix -inline rewrites it.
//
//go:fix inline
type MemoryTokenStore = token.MemoryStore

// FileTokenStore is the old name of [token.FileStore].
//
// Deprecated: use [token.FileStore]; go fix -inline rewrites it.
//
//go:fix inline
type FileTokenStore = token.FileStore

// NewFileTokenStore is the old name of [token.NewFileStore].
//
// Deprecated: use [token.NewFileStore]; go fix -inline rewrites it.
//
//go:fix inline
func NewFileTokenStore(path string) *token.FileStore { return token.NewFileStore(path) }

// ErrNoToken is the old name of [token.ErrNotFound].
//
// Deprecated: use [token.ErrNotFound].
var ErrNoToken = token.ErrNotFound

// OAuth is the old name of [oauth.Config].
//
// Deprecated: use [oauth.Config]; go fix -inline rewrites it.
//
//go:fix inline
type OAuth = oauth.Config

// ClientCredentials is the old name of [oauth.ClientCredentials].
//
// Deprecated: use [oauth.ClientCredentials]; go fix -inline rewrites it.
//
//go:fix inline
type ClientCredentials = oauth.ClientCredentials

// AuthorizationRequest is the old name of [oauth.AuthorizationRequest].
//
// Deprecated: use [oauth.AuthorizationRequest]; go fix -inline rewrites it.
//
//go:fix inline
type AuthorizationRequest = oauth.AuthorizationRequest

// AuthorizationHandler is the old name of [oauth.AuthorizationHandler].
//
// Deprecated: use [oauth.AuthorizationHandler]; go fix -inline rewrites it.
//
//go:fix inline
type AuthorizationHandler = oauth.AuthorizationHandler

// DPoP is the old name of [oauth.DPoP].
//
// Deprecated: use [oauth.DPoP]; go fix -inline rewrites it.
//
//go:fix inline
type DPoP = oauth.DPoP

// EnterpriseAuth is the old name of [oauth.Enterprise].
//
// Deprecated: use [oauth.Enterprise]; go fix -inline rewrites it.
//
//go:fix inline
type EnterpriseAuth = oauth.Enterprise

// WorkloadIdentity is the old name of [oauth.WorkloadIdentity].
//
// Deprecated: use [oauth.WorkloadIdentity]; go fix -inline rewrites it.
//
//go:fix inline
type WorkloadIdentity = oauth.WorkloadIdentity

// DefaultRedirectURL is the old name of [oauth.DefaultRedirectURL].
//
// Deprecated: use [oauth.DefaultRedirectURL]; go fix -inline rewrites it.
//
//go:fix inline
const DefaultRedirectURL = oauth.DefaultRedirectURL

// Loopback is the old name of [oauth.Loopback].
//
// Deprecated: use [oauth.Loopback]; go fix -inline rewrites it.
//
//go:fix inline
func Loopback(open func(url string) error) oauth.AuthorizationHandler { return oauth.Loopback(open) }

// Server is the old name of [Upstream].
//
// Deprecated: use [Upstream]; go fix -inline rewrites it.
//
//go:fix inline
type Server = Upstream

// ServerError is the old name of [UpstreamError].
//
// Deprecated: use [UpstreamError]; go fix -inline rewrites it.
//
//go:fix inline
type ServerError = UpstreamError

// ServerStatus is the old name of [UpstreamStatus].
//
// Deprecated: use [UpstreamStatus]; go fix -inline rewrites it.
//
//go:fix inline
type ServerStatus = UpstreamStatus

// ToolError is the old name of [ImportError].
//
// Deprecated: use [ImportError]; go fix -inline rewrites it.
//
//go:fix inline
type ToolError = ImportError
