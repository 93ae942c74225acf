// Command subscription runs the subscription service (subcommands: serve, migrate, replay-dead-letters).
package main

import (
	"bidradar/pkg/runner"
	"bidradar/services/subscription/subscriptionsvc"
)

func main() { runner.Main(subscriptionsvc.Spec) }
