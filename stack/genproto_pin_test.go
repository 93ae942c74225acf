package stack_test

// toxiproxy's module graph reaches the 2020 google.golang.org/genproto
// monolith, whose googleapis/rpc and googleapis/api packages collide with
// the split modules grpc uses ("ambiguous import"). Importing one package of
// a post-split version of the monolith keeps that version required, so
// `go mod tidy` cannot fall back to the old one.
import _ "google.golang.org/genproto/googleapis/type/date"
