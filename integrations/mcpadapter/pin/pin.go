// Package pin holds what pins MCP tools and stdio launches to the
// definition an operator accepted: the [Store] of pins, the keys they are
// kept under and the [Launch] a stdio server runs. It imports no MCP SDK,
// so that a store or an operator console can keep and show pins without
// one.
//
//	pins := pin.NewMemoryStore(nil)
//	h, _ := pins.SetIfAbsent(ctx, pin.Key("notes", "search"), hash)
//	if h != hash {
//		// the definition changed since it was pinned
//	}
//
// The Manager of package mcpadapter compares every imported definition
// with its pin and quarantines a changed one.
package pin

import "errors"

// ErrDefinitionChanged is wrapped by the error of an accept whose hash is
// not the quarantined definition's (mcpadapter.Manager.Accept): the server
// changed it again after the operator reviewed it.
var ErrDefinitionChanged = errors.New("mcpadapter: the definition changed since you reviewed it; review again")

// Key is the key of a tool's pin in a [Store]: the server's name and the
// tool's name on that server.
func Key(server, remoteName string) string { return server + "/" + remoteName }
