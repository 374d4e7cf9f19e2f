package kit

// The keys of the map [ToolMeta] returns.
const (
	MetaTitle       = "title"       // the spec's title (a string), when it has one
	MetaAnnotations = "annotations" // MCP's behaviour hints (map[string]bool)
	MetaSource      = "source"      // "local" or "mcp:<server>"
	MetaRemoteName  = "remoteName"  // an imported tool's name on its MCP server
	MetaTags        = "tags"        // the spec's tags ([]string)
	MetaMeta        = "_meta"       // the spec's Meta (MCP's _meta)
)
