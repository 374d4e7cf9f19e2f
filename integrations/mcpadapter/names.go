package mcpadapter

// LocalName returns the name a [Manager] registers a server's tool under:
// the remote name (or "<server>_<remote>" with Server.Prefix), characters
// outside [A-Za-z0-9_-] replaced by '_', cut to [adapter.MaxNameLen] with a
// hash suffix when longer. A pin is keyed by the remote name
// ([PinKey]); this is the name a client calls.
func LocalName(server, remote string, prefix bool) string {
	return localName(server, remote, prefix)
}
