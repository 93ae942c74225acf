module bidradar/services/auth

go 1.26.0

replace (
	bidradar/gen => ../../gen
	bidradar/pkg => ../../pkg
)

require (
	bidradar/pkg v0.0.0-00010101000000-000000000000
	github.com/google/uuid v1.6.0
	golang.org/x/text v0.43.0
)

require (
	connectrpc.com/connect v1.21.1 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
