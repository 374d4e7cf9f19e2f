package main

import (
	"log/slog"
	"os"
	"testing"
)

// BenchmarkSessionLogLine is one of go-sdk's per-session lines through
// serve's logger (masked, text, to a file: stderr; here os.DevNull) at
// its default info level: written at info as before #30 (line=info, three
// per 2026-07-28 call), and demoted to debug by the export as now
// (line=debug: dropped at Enabled).
func BenchmarkSessionLogLine(b *testing.B) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	log := (&env{stderr: null}).logger(slog.LevelInfo)
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		b.Run("line="+map[slog.Level]string{slog.LevelInfo: "info", slog.LevelDebug: "debug"}[level], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				log.Log(b.Context(), level, "server session connected", "session_id", "")
			}
		})
	}
}
