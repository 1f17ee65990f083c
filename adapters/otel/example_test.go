package sentinelotel_test

import (
	"context"
	"fmt"
	"log"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	sentinelotel "github.com/sentinelgen/sentinelgen/adapters/otel"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// The runtime's figures on a MeterProvider, response-time histograms
// through the reader's producer, refusals and business errors on the
// callers' spans.
func Example() {
	reader := sdkmetric.NewManualReader(sdkmetric.WithProducer(sentinelotel.NewProducer()))
	meterProvider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	m, err := sentinelotel.RegisterMetrics(meterProvider)
	if err != nil {
		log.Fatal(err)
	}
	defer m.Unregister()
	defer sentinelotel.Trace()()

	runtime.EnableRTHistogram("getOrder") // microsecond buckets for this resource
	e, b := runtime.Entry(context.Background(), "getOrder")
	if b == nil {
		e.Exit()
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		log.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == "sentinel.resource.call.duration" {
				fmt.Println(m.Name, m.Unit)
			}
		}
	}
	// Output: sentinel.resource.call.duration s
}

// A span per protected call, a child of the caller's span.
func ExampleWithCallSpans() {
	tracerProvider := sdktrace.NewTracerProvider()
	defer tracerProvider.Shutdown(context.Background())
	defer sentinelotel.Trace(sentinelotel.WithCallSpans(tracerProvider))()
}
