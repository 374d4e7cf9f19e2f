package schema

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// checkAppendJSON holds AppendJSON to json.Marshal's bytes for v.
func checkAppendJSON(t *testing.T, v any) {
	t.Helper()
	want, werr := json.Marshal(v)
	got, ok := AppendJSON(nil, v)
	if werr != nil {
		if ok {
			t.Fatalf("%#v: AppendJSON encoded %s; json.Marshal failed: %v", v, got, werr)
		}
		return
	}
	if !ok || !bytes.Equal(got, want) {
		t.Fatalf("%#v:\nappendJSON   %s (ok %v)\njson.Marshal %s", v, got, ok, want)
	}
}

func TestAppendJSONMatchesMarshal(t *testing.T) {
	for _, v := range []any{
		nil, true, false, "", "plain", "<a href=\"x\">&amp;</a>", "tab\tnl\ncr\rbs\bff\f\x00\x01\x1f\x7f",
		"\u2028\u2029 é 😀", "bad \xff\xfe utf8 \xe2\x82", `back\slash "quote"`,
		0.0, math.Copysign(0, -1), 1.0, -1.5, 1e20, 1e21, 1e-6, 1e-7, 123456789012345680000.0, 5e-324,
		math.MaxFloat64, 0.1, 1.0 / 3, -2.5e-9, 1e100,
		[]any{}, []any(nil), map[string]any{}, map[string](any)(nil),
		map[string]any{"b": 1.0, "a": []any{nil, "x", map[string]any{"z": false, "<": "&"}}, "é": 2.0, "A": 3.0, "": 4.0},
	} {
		checkAppendJSON(t, v)
	}
	if _, ok := AppendJSON(nil, math.NaN()); ok {
		t.Error("NaN encoded")
	}
	if _, ok := AppendJSON(nil, map[string]any{"n": 1}); ok {
		t.Error("an int (not a decoded JSON value) was encoded instead of left to json.Marshal")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		checkAppendJSON(t, randomJSONValue(r, 0))
	}
}

func FuzzAppendJSON(f *testing.F) {
	for _, s := range append(schemaSeeds, `"\u003c\u2028\ud800"`, `[1e21,1e-7,-0,0.1]`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		checkAppendJSON(t, v)
		// Strings as raw bytes, valid UTF-8 or not.
		checkAppendJSON(t, string(data))
	})
}

func randomJSONValue(r *rand.Rand, depth int) any {
	switch r.IntN(9) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return math.Float64frombits(r.Uint64()) // any float, NaN and Inf included
	case 3:
		return r.NormFloat64() * math.Pow(10, float64(r.IntN(60)-30))
	case 4:
		return randomString(r)
	case 5:
		if depth < 3 {
			l := make([]any, r.IntN(4))
			for i := range l {
				l[i] = randomJSONValue(r, depth+1)
			}
			return l
		}
	case 6:
		if depth < 3 {
			m := map[string]any{}
			for range r.IntN(4) {
				m[randomString(r)] = randomJSONValue(r, depth+1)
			}
			return m
		}
	}
	return "s"
}

// randomString returns bytes of any value: control characters, HTML
// characters, invalid UTF-8.
func randomString(r *rand.Rand) string {
	b := make([]byte, r.IntN(12))
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return string(b)
}
