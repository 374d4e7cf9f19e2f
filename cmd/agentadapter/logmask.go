package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
)

// maskHandler masks, in every log record, the secrets config.MaskText
// finds by structure: an upstream's connect error quotes its URL, query
// string (api_key=…) included, and a launch or reload message may quote a
// command line. Wrapping the handler, as slog middleware does, covers
// every log line of every command, present and future, in one place.
type maskHandler struct{ next slog.Handler }

func maskLogs(h slog.Handler) slog.Handler { return maskHandler{h} }

func (h maskHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h maskHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, config.MaskText(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(maskAttr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h maskHandler) WithAttrs(as []slog.Attr) slog.Handler {
	masked := make([]slog.Attr, len(as))
	for i, a := range as {
		masked[i] = maskAttr(a)
	}
	return maskHandler{h.next.WithAttrs(masked)}
}

func (h maskHandler) WithGroup(name string) slog.Handler { return maskHandler{h.next.WithGroup(name)} }

// maskAttr masks a string, an error's text or a Stringer's, at any depth
// of groups; numbers, times and the like pass as they are.
func maskAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, config.MaskText(v.String()))
	case slog.KindGroup:
		g := v.Group()
		masked := make([]any, len(g))
		for i, c := range g {
			masked[i] = maskAttr(c)
		}
		return slog.Group(a.Key, masked...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, config.MaskText(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, config.MaskText(x.String()))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
