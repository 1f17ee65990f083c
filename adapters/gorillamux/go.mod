module github.com/sentinelgen/sentinelgen/adapters/gorillamux

go 1.26.0

require (
	github.com/gorilla/mux v1.8.1
	github.com/sentinelgen/sentinelgen v0.0.0
	github.com/stretchr/testify v1.12.1
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect

replace github.com/sentinelgen/sentinelgen => ../..
