package canonical

import (
	"encoding/json"
	"testing"
)

var appendStringCases = []string{
	"", "plain", `quote " and \ backslash`, "<script>&amp;</script>",
	"\b\f\n\r\t\x00\x01\x1f\x7f", "é ü 中文 🙂", "\u2028\u2029", "bad \xff\xfe utf-8", "\xe2\x80",
}

func TestAppendString(t *testing.T) {
	for _, s := range appendStringCases {
		want, _ := json.Marshal(s)
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("AppendString(%q) = %s, want x%s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range appendStringCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}
