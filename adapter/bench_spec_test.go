package adapter_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
)

type benchArgs struct {
	City  string  `json:"city" jsonschema:"the city"`
	Days  int     `json:"days,omitempty"`
	Lat   float64 `json:"lat,omitempty"`
	Units string  `json:"units,omitempty"`
}

type benchForecast struct {
	City  string     `json:"city"`
	Days  []benchDay `json:"days"`
	Notes []string   `json:"notes,omitempty"`
}

type benchDay struct {
	TempC    float64 `json:"temp_c"`
	Humidity int     `json:"humidity"`
	Summary  string  `json:"summary"`
}

func benchHandler(_ context.Context, a benchArgs) (benchForecast, error) {
	f := benchForecast{City: a.City, Days: make([]benchDay, a.Days)}
	for i := range f.Days {
		f.Days[i] = benchDay{TempC: 20 + float64(i), Humidity: 40 + i, Summary: "clear"}
	}
	return f, nil
}

var benchCallArgs = json.RawMessage(`{"city":"Paris","days":3,"units":"metric"}`)

// BenchmarkNewTool: typed construction, with schema inference for In and
// Out and compilation of both validators.
func BenchmarkNewTool(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := adapter.NewTool("forecast", "Weather forecast", benchHandler, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTypedCall: one Spec.Call — validate and decode the arguments,
// run the handler, encode both channels, validate the output. No schema
// work happens here: compare with BenchmarkNewTool.
func BenchmarkTypedCall(b *testing.B) {
	spec := adapter.MustTool("forecast", "Weather forecast", benchHandler, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := spec.CallDirect(ctx, benchCallArgs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBareDecodeCallEncode is the floor: json.Unmarshal, the same
// handler, json.Marshal — no validation, no second channel.
func BenchmarkBareDecodeCallEncode(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var a benchArgs
		if err := json.Unmarshal(benchCallArgs, &a); err != nil {
			b.Fatal(err)
		}
		out, err := benchHandler(ctx, a)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTypedCallList: a wrapped list result (one text block per element).
func BenchmarkTypedCallList(b *testing.B) {
	spec := adapter.MustTool("days", "", func(ctx context.Context, a benchArgs) ([]benchDay, error) {
		f, err := benchHandler(ctx, a)
		return f.Days, err
	}, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := spec.CallDirect(ctx, benchCallArgs); err != nil {
			b.Fatal(err)
		}
	}
}
