// Package orderspb is the order service's gRPC API, generated from
// orders.proto: orders.pb.go by protoc-gen-go, orders_grpc.pb.go by
// protoc-gen-go-grpc.
//
// To regenerate after editing orders.proto, with protoc on PATH (Debian's
// protobuf-compiler; .ci/protoc.sh installs it):
//
//	go generate ./examples/orderservice/orderspb
//
// The plugins are the versions go.mod pins in its tool block; `go tool -n`
// builds them and prints their paths. TestGeneratedCodeMatchesTheProto
// fails when the committed files differ from what protoc writes.
package orderspb

//go:generate sh -c "protoc --plugin=protoc-gen-go=$(go tool -n protoc-gen-go) --plugin=protoc-gen-go-grpc=$(go tool -n protoc-gen-go-grpc) --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative orders.proto"
