package transport

// What the package's own tests reach that users do not.
var (
	MetricNodes     = metricNodes
	OpenMetricLog   = openMetricLog
	MetricFileName  = metricFileName
	ParseDashboards = parseDashboards
)

type MetricNode = metricNode
