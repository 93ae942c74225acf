// Command auth runs the auth service.
//
//	auth [serve]   serve AuthService on AUTH_ADDR (default 127.0.0.1:9001)
//	auth migrate   apply the database migrations and exit
//
// Configuration comes from the environment only (see services/auth/README.md).
package main

import (
	"bidradar/pkg/runner"
	"bidradar/services/auth/authsvc"
)

func main() { runner.Main(authsvc.Spec) }
