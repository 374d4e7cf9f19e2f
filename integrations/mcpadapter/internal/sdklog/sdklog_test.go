package sdklog

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// TestSDKLoggerDemotesInfo: go-sdk's info lines reach the export's logger
// at debug level (none at the default info level, no formatting spent on
// them), its warnings and errors as they were, and attributes and groups
// pass through.
func TestSDKLoggerDemotesInfo(t *testing.T) {
	ctx := context.Background()
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		var buf bytes.Buffer
		l := Demoted(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: level})))
		l = l.With("a", 1).WithGroup("g")
		if got := l.Enabled(ctx, slog.LevelInfo); got != (level == slog.LevelDebug) {
			t.Errorf("at %v: info enabled = %v", level, got)
		}
		l.Info("server session connected", "session_id", "s1")
		l.Warn("storing priming event", "k", "v")
		l.Error("broken")
		out := buf.String()
		connected := strings.Contains(out, "server session connected")
		if connected != (level == slog.LevelDebug) {
			t.Errorf("at %v: the info line logged = %v:\n%s", level, connected, out)
		}
		if connected && !strings.Contains(out, `level=DEBUG msg="server session connected" a=1 g.session_id=s1`) {
			t.Errorf("at %v: the info line is not at debug with its attributes:\n%s", level, out)
		}
		if !strings.Contains(out, `level=WARN msg="storing priming event" a=1 g.k=v`) || !strings.Contains(out, "level=ERROR msg=broken") {
			t.Errorf("at %v: warnings and errors not passed on as they were:\n%s", level, out)
		}
	}
	if Demoted(nil) != nil {
		t.Error("a nil logger became a logger")
	}
}
