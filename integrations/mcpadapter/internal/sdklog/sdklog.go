// Package sdklog holds the logger the export gives go-sdk's server.
//
// It is internal to the module.
package sdklog

import (
	"context"
	"log/slog"
)

// Demoted is the logger the export gives go-sdk's server for l. go-sdk logs
// each session's connect and disconnect at info level, and in the
// 2026-07-28 era every request is a session of its own: three lines per
// call, one written under the server's lock (4–5 % of the gateway's
// CPU per call went to them, #30). Its info lines are passed on at debug
// level, so that a logger at debug still has them; its warnings and
// errors as they are. Nil stays nil (go-sdk then logs nothing).
func Demoted(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(demoteInfo{l.Handler()})
}

type demoteInfo struct{ next slog.Handler }

func (h demoteInfo) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, demote(l))
}

func (h demoteInfo) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level)
	return h.next.Handle(ctx, r)
}

func (h demoteInfo) WithAttrs(as []slog.Attr) slog.Handler { return demoteInfo{h.next.WithAttrs(as)} }
func (h demoteInfo) WithGroup(name string) slog.Handler    { return demoteInfo{h.next.WithGroup(name)} }

// demote maps info (and what lies between info and warn) to debug.
func demote(l slog.Level) slog.Level {
	if l >= slog.LevelInfo && l < slog.LevelWarn {
		return slog.LevelDebug
	}
	return l
}
