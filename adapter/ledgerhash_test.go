package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// legacyChainBytes is the former ChainHash's input, verbatim: the
// reference every stored chain was written with, kept to hold the
// appending encoder to it byte for byte.
func legacyChainBytes(r *Record) []byte {
	args := r.Args
	if len(args) > 0 {
		if c, err := CanonicalJSON(args); err == nil {
			args = c
		} else {
			args, _ = json.Marshal(string(args))
		}
	}
	f := chainForm{
		r.Prev, r.Time.UnixNano(), r.CallID, r.RunID, r.Tool, r.Source, r.Integration, r.Subject,
		args, r.Outcome, r.Message, r.Approval, r.Approver, r.Requester, r.Ticket, r.CacheHit,
		int64(r.Duration), r.ResultBytes, r.ArgsHash, r.ResultHash,
	}
	b, err := json.Marshal(&f)
	if err != nil {
		b = fmt.Appendf(nil, "%#v", f)
	}
	return b
}

// newChainBytes is what ChainHash hashes now.
func newChainBytes(r *Record) []byte {
	args := r.Args
	if len(args) > 0 {
		if c, err := CanonicalJSON(args); err == nil {
			args = c
		} else {
			args, _ = json.Marshal(string(args))
		}
	}
	if args != nil && len(args) == 0 {
		return fmt.Appendf(nil, "%#v", newChainForm(r, args))
	}
	return appendChainForm(nil, r, args)
}

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

// randJSON makes a JSON text: valid (with white space, unsorted keys,
// escapes, HTML bytes, U+2028), or not JSON at all.
func randJSON(rng *rand.Rand, depth int) string {
	switch k := rng.IntN(9); {
	case depth > 3 || k == 0:
		return []string{"1", "-2.50", "1e3", "true", "null", `"s"`, `"\u003c"`, `"<&>"`, "\"\u2028\"", `"\ud83c\udf89"`}[rng.IntN(10)]
	case k == 1:
		s, _ := json.Marshal(hazardString(rng))
		return string(s)
	case k <= 4:
		var b bytes.Buffer
		b.WriteString("{")
		n := rng.IntN(4)
		for i := range n {
			if i > 0 {
				b.WriteString([]string{",", " , ", ",\n"}[rng.IntN(3)])
			}
			key, _ := json.Marshal(hazardString(rng))
			b.Write(key)
			b.WriteString([]string{":", " : "}[rng.IntN(2)])
			b.WriteString(randJSON(rng, depth+1))
		}
		b.WriteString("}")
		return b.String()
	case k <= 6:
		var b bytes.Buffer
		b.WriteString("[")
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(randJSON(rng, depth+1))
		}
		b.WriteString("]")
		return b.String()
	case k == 7:
		return []string{"{", `{"a":1,"a":2}`, "not json", "\xff", `{"a":}`, " ", "{}x"}[rng.IntN(7)]
	}
	return hazardString(rng)
}

func randRecord(rng *rand.Rand) *Record {
	r := &Record{
		Time:        time.Unix(rng.Int64N(1<<40)-(1<<39), rng.Int64N(1e9)),
		CallID:      hazardString(rng),
		RunID:       hazardString(rng),
		Tool:        hazardString(rng),
		Source:      hazardString(rng),
		Integration: hazardString(rng),
		Subject:     hazardString(rng),
		Outcome:     hazardString(rng),
		Message:     hazardString(rng),
		Approval:    hazardString(rng),
		Approver:    hazardString(rng),
		Ticket:      hazardString(rng),
		CacheHit:    rng.IntN(2) == 0,
		Duration:    time.Duration(rng.Int64() - rng.Int64()),
		ResultBytes: rng.IntN(1<<30) - rng.IntN(1<<20),
		ArgsHash:    hazardString(rng),
		ResultHash:  hazardString(rng),
		Prev:        hazardString(rng),
		Seq:         rng.Int64(),
		Hash:        hazardString(rng),
	}
	if rng.IntN(2) == 0 {
		r.Requester = hazardString(rng)
	}
	switch rng.IntN(8) {
	case 0: // nil
	case 1:
		r.Args = json.RawMessage{}
	default:
		r.Args = json.RawMessage(randJSON(rng, 0))
	}
	return r
}

// TestChainHashIdentical holds the appending encoder to the encoding/json
// output every stored chain was written with: random records, every
// string hazard encoding/json escapes, arguments canonical, not
// canonical and not JSON.
func TestChainHashIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		r := randRecord(rng)
		if got, want := newChainBytes(r), legacyChainBytes(r); !bytes.Equal(got, want) {
			t.Fatalf("record %d (%#v):\n got %s\nwant %s", i, r, got, want)
		}
		if got, want := ChainHash(r), sha256Hex(legacyChainBytes(r)); got != want {
			t.Fatalf("record %d: ChainHash %s, want %s", i, got, want)
		}
	}
}

// FuzzLedgerHashIdentical: the chain form and the result encoding of any
// record and result are encoding/json's, byte for byte.
func FuzzLedgerHashIdentical(f *testing.F) {
	for _, s := range hardStrings {
		f.Add(s, []byte(`{"b":1,"a":"<x>"}`), s, int64(7), true)
	}
	f.Add("x", []byte("\u2028"), "\xe2\x80\xa9", int64(-1), false)
	f.Fuzz(func(t *testing.T, s string, args []byte, text string, n int64, flag bool) {
		r := &Record{Prev: s, CallID: text, Tool: s, Message: text, Requester: text, Args: args,
			Time: time.Unix(0, n), Duration: time.Duration(n), ResultBytes: int(n), CacheHit: flag}
		if len(args) == 0 && flag {
			r.Args = nil
		}
		if got, want := newChainBytes(r), legacyChainBytes(r); !bytes.Equal(got, want) {
			t.Fatalf("chain form:\n got %s\nwant %s", got, want)
		}
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

// BenchmarkLedgerHash compares the record hashing the ledger does per call
// with the encoding/json form it replaced (impl=json).
func BenchmarkLedgerHash(b *testing.B) {
	r := &Record{Time: time.Now(), CallID: "call_0123456789abcdef01234567", Tool: "add", Source: "local",
		Args: json.RawMessage(`{"a":1,"b":2}`), Outcome: OutcomeOK, Duration: 1234, ResultBytes: 9,
		ArgsHash: sha256Hex([]byte("x")), ResultHash: sha256Hex([]byte("y")), Prev: sha256Hex([]byte("z"))}
	res, err := (&encoder[struct {
		Sum int `json:"sum"`
	}]{mode: OutputAuto, shape: shapeObject}).encode(struct {
		Sum int `json:"sum"`
	}{3})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("chain/impl=json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sha256Hex(legacyChainBytes(r))
		}
	})
	b.Run("chain/impl=append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ChainHash(r)
		}
	})
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
