package sentinelotel_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.uber.org/goleak"

	sentinelotel "github.com/sentinelgen/sentinelgen/adapters/otel"
)

// RegisterMetrics folds on a goroutine of its own; Unregister ends it.
func TestUnregisterEndsTheFoldingGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(),
		goleak.IgnoreTopFunction("github.com/sentinelgen/sentinelgen/internal/clock.tick"))
	m, err := sentinelotel.RegisterMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())))
	require.NoError(t, err)
	require.NoError(t, m.Unregister())
}
