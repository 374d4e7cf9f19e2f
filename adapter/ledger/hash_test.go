package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter/canonical"
)

// legacyChainBytes is the former Hash's input, verbatim: the
// reference every stored chain was written with, kept to hold the
// appending encoder to it byte for byte.
func legacyChainBytes(r *Record) []byte {
	args := r.Args
	if len(args) > 0 {
		if c, err := canonical.JSON(args); err == nil {
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
	var v any = &f
	if r.Credential != "" {
		v = &credentialForm{f, r.Credential}
	}
	b, err := json.Marshal(v)
	if err != nil {
		b = fmt.Appendf(nil, "%#v", reflect.ValueOf(v).Elem().Interface())
	}
	return b
}

// newChainBytes is what Hash hashes now.
func newChainBytes(r *Record) []byte {
	args := r.Args
	if len(args) > 0 {
		if c, err := canonical.JSON(args); err == nil {
			args = c
		} else {
			args, _ = json.Marshal(string(args))
		}
	}
	if args != nil && len(args) == 0 {
		if r.Credential != "" {
			return fmt.Appendf(nil, "%#v", credentialForm{newChainForm(r, args), r.Credential})
		}
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
		Credential:  hazardString(rng),
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
		if got, want := Hash(r), sha256Hex(legacyChainBytes(r)); got != want {
			t.Fatalf("record %d: Hash %s, want %s", i, got, want)
		}
	}
}

// FuzzLedgerHashIdentical: the chain form of any record is encoding/json's,
// byte for byte (the adapter package's FuzzLedgerHashIdentical checks the
// result encoding with the same seeds).
func FuzzLedgerHashIdentical(f *testing.F) {
	for _, s := range hardStrings {
		f.Add(s, []byte(`{"b":1,"a":"<x>"}`), s, int64(7), true)
	}
	f.Add("x", []byte("\u2028"), "\xe2\x80\xa9", int64(-1), false)
	f.Fuzz(func(t *testing.T, s string, args []byte, text string, n int64, flag bool) {
		r := &Record{Prev: s, CallID: text, Tool: s, Message: text, Requester: text, Credential: s, Args: args,
			Time: time.Unix(0, n), Duration: time.Duration(n), ResultBytes: int(n), CacheHit: flag}
		if len(args) == 0 && flag {
			r.Args = nil
		}
		if got, want := newChainBytes(r), legacyChainBytes(r); !bytes.Equal(got, want) {
			t.Fatalf("chain form:\n got %s\nwant %s", got, want)
		}
	})
}

// BenchmarkLedgerHash compares the record hashing a chained ledger does per
// call with the encoding/json form it replaced (impl=json); the adapter
// package's BenchmarkLedgerHash does the same for the result hash.
func BenchmarkLedgerHash(b *testing.B) {
	r := &Record{Time: time.Now(), CallID: "call_0123456789abcdef01234567", Tool: "add", Source: "local",
		Args: json.RawMessage(`{"a":1,"b":2}`), Outcome: OutcomeOK, Duration: 1234, ResultBytes: 9,
		ArgsHash: sha256Hex([]byte("x")), ResultHash: sha256Hex([]byte("y")), Prev: sha256Hex([]byte("z"))}
	b.Run("chain/impl=json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sha256Hex(legacyChainBytes(r))
		}
	})
	b.Run("chain/impl=append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Hash(r)
		}
	})
}
