module github.com/sentinelgen/sentinelgen/adapters/chi

go 1.26.0

require (
	github.com/go-chi/chi/v5 v5.5.0
	github.com/sentinelgen/sentinelgen v0.0.0
	github.com/stretchr/testify v1.12.1
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect

replace github.com/sentinelgen/sentinelgen => ../..
