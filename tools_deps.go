//go:build tools
package tools
import (
	_ "github.com/stretchr/testify/require"
	_ "golang.org/x/tools/go/packages"
	_ "github.com/dave/jennifer/jen"
	_ "github.com/fsnotify/fsnotify"
	_ "go.uber.org/goleak"
	_ "golang.org/x/time/rate"
	_ "github.com/sony/gobreaker/v2"
	_ "github.com/prometheus/client_golang/prometheus"
)
