// Package mcpadapter connects agentadapter to the Model Context Protocol in
// both directions, on the official go-sdk: it imports the tools of MCP
// servers into a registry, and serves a registry as an MCP server.
package mcpadapter
