package adapter

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// hardStrings are the strings encoding/json treats specially.
var hardStrings = []string{
	"", "plain", `quote " and \ backslash`, "<script>&amp;</script>", "tab\tnew\nline\rcr",
	"\b\f\x00\x01\x1f\x7f", "é ü 中文 🎉", "line\u2028para\u2029", "bad \xff\xfe utf8", "\xe2\x80", "\xe2\x80\xa8",
	"trunc \xf0\x9f", "\ufffd", "a/b", "call_0123456789abcdef01234567",
}

func hazardString(rng *rand.Rand) string {
	if rng.IntN(3) == 0 {
		return hardStrings[rng.IntN(len(hardStrings))]
	}
	n := rng.IntN(24)
	b := make([]byte, n)
	for i := range b {
		switch rng.IntN(4) {
		case 0:
			b[i] = byte(rng.IntN(256))
		default:
			b[i] = byte(' ' + rng.IntN(95))
		}
	}
	return string(b)
}

// FuzzLedgerHashIdentical: the result encoding of any result is
// MarshalResult's, byte for byte (the ledger package's
// FuzzLedgerHashIdentical checks the chain form with the same seeds).
func FuzzLedgerHashIdentical(f *testing.F) {
	for _, s := range hardStrings {
		f.Add(s, []byte(`{"b":1,"a":"<x>"}`), s, int64(7), true)
	}
	f.Add("x", []byte("\u2028"), "\xe2\x80\xa9", int64(-1), false)
	f.Fuzz(func(t *testing.T, s string, args []byte, text string, n int64, flag bool) {
		res := &Result{Content: []Content{&TextContent{Text: text}, &TextContent{Text: s}}}
		if flag {
			res.Content = res.Content[:1]
		}
		if json.Valid(args) {
			res.Structured, res.structOf, res.structJSON = s, s, args
		}
		checkResultEncoding(t, res)
	})
}

// checkResultEncoding checks appendResult against MarshalResult, and
// ResultHash against the hash of MarshalResult.
func checkResultEncoding(t *testing.T, res *Result) (fast bool) {
	t.Helper()
	want, err := MarshalResult(res)
	if err != nil {
		if got := ResultHash(res); got != "" {
			t.Fatalf("ResultHash of a result MarshalResult refuses (%v) = %s, want empty", err, got)
		}
		return false
	}
	got, ok := appendResult(nil, res)
	if ok && !bytes.Equal(got, want) {
		t.Fatalf("result encoding:\n got %s\nwant %s", got, want)
	}
	if h := ResultHash(res); h != sha256Hex(want) {
		t.Fatalf("ResultHash %s, want %s (of %s)", h, sha256Hex(want), want)
	}
	return ok
}

// TestResultHashIdentical: ResultHash is the hash of MarshalResult for
// the results typed tools make (the fast path) and for every other shape
// (the fallback), including values edited after encoding.
func TestResultHashIdentical(t *testing.T) {
	type out struct {
		S string         `json:"s"`
		N float64        `json:"n"`
		L []string       `json:"l"`
		M map[string]int `json:"m,omitempty"`
	}
	rng := rand.New(rand.NewPCG(3, 4))
	fast := 0
	for i := range 5000 {
		v := out{S: hazardString(rng), N: rng.NormFloat64() * 1e6, L: []string{hazardString(rng), hazardString(rng)}}
		if i%3 == 0 {
			v.M = map[string]int{hazardString(rng): i, "<k>": -i}
		}
		enc := &encoder[out]{mode: OutputAuto, shape: shapeObject}
		res, err := enc.encode(v)
		if err != nil {
			t.Fatal(err)
		}
		switch i % 10 {
		case 1:
			res.Meta = map[string]any{"k": hazardString(rng)}
		case 2:
			res.Content = append(res.Content, &ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"})
		case 3:
			res.Structured = map[string]any{"replaced": true} // a guard's new value
		case 4:
			res.Content[0].(*TextContent).Annotations = &ContentAnnotations{Priority: 1}
		case 5:
			res.Structured = json.RawMessage(`{"raw" : "<not compact>"}`)
		case 6:
			res.Structured = json.RawMessage(`{bad`)
		case 7:
			res.Content = append(res.Content, &TextContent{}, &TextContent{Text: hazardString(rng)})
		case 8:
			res = TextResult(hazardString(rng))
		case 9:
			res = &Result{Content: []Content{}, Meta: map[string]any{}}
		}
		if checkResultEncoding(t, res) {
			fast++
		}
	}
	if fast < 2000 {
		t.Errorf("only %d of 5000 results took the fast path", fast)
	}
}

// BenchmarkLedgerHash compares the result hashing the executor does per
// call with the encoding/json form it replaced (impl=json); the ledger
// package's BenchmarkLedgerHash does the same for the record hash.
func BenchmarkLedgerHash(b *testing.B) {
	res, err := (&encoder[struct {
		Sum int `json:"sum"`
	}]{mode: OutputAuto, shape: shapeObject}).encode(struct {
		Sum int `json:"sum"`
	}{3})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("result/impl=json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m, _ := MarshalResult(res)
			sha256Hex(m)
		}
	})
	b.Run("result/impl=append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ResultHash(res)
		}
	})
}
