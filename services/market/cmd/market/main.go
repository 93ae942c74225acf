// Command market runs the market service (subcommands: serve, migrate, replay-dead-letters).
package main

import (
	"bidradar/pkg/runner"
	"bidradar/services/market/marketsvc"
)

func main() { runner.Main(marketsvc.Spec) }
