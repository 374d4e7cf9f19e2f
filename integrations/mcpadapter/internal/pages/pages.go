// Package pages fetches the paginated listings of an MCP server: every
// page, within a bound on their number, refusing a repeated cursor (a
// server looping its listing).
//
//	tools, err := pages.Tools(ctx, session, maxPages, retries, onError)
//	prompts, err := pages.Collect(ctx, maxPages, func(cursor string) ([]*mcp.Prompt, string, error) { ... })
//
// It is internal to the module.
package pages

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tools fetches every page of tools/list, capped at maxPages, refusing a
// repeated cursor; a failed page is asked again up to retries times, and
// failed sees the error of a page given up on.
func Tools(ctx context.Context, s *mcp.ClientSession, maxPages, retries int, failed func(error)) ([]*mcp.Tool, error) {
	var out []*mcp.Tool
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, fmt.Errorf("tools/list has more than %d pages", maxPages)
		}
		var res *mcp.ListToolsResult
		var err error
		for try := 0; ; try++ {
			res, err = s.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			if err == nil || try >= retries || ctx.Err() != nil {
				break
			}
			t := time.NewTimer(time.Duration(try+1) * 100 * time.Millisecond)
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			t.Stop()
		}
		if err != nil {
			failed(err)
			return nil, fmt.Errorf("tools/list (page %d): %w", page+1, err)
		}
		out = append(out, res.Tools...)
		if res.NextCursor == "" {
			return out, nil
		}
		if seen[res.NextCursor] {
			return nil, fmt.Errorf("tools/list repeated cursor %q (page %d)", res.NextCursor, page+1)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// Collect fetches every page of a listing, page by page from cursor "",
// at most maxPages of them, refusing a repeated cursor.
func Collect[T any](ctx context.Context, maxPages int, page func(cursor string) ([]*T, string, error)) ([]*T, error) {
	var out []*T
	seen := map[string]bool{}
	cursor := ""
	for i := 0; i < maxPages; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		items, next, err := page(cursor)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("mcpadapter: server repeated cursor %q", next)
		}
		seen[next] = true
		cursor = next
	}
	return nil, fmt.Errorf("mcpadapter: listing has more than %d pages", maxPages)
}
