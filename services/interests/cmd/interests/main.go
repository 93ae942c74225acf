// Command interests runs the interests service (subcommands: serve, migrate, replay-dead-letters).
package main

import (
	"bidradar/pkg/runner"
	"bidradar/services/interests/interestssvc"
)

func main() { runner.Main(interestssvc.Spec) }
