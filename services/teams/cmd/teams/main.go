// Command teams runs the teams service (subcommands: serve, migrate, replay-dead-letters).
package main

import (
	"bidradar/pkg/runner"
	"bidradar/services/teams/teamssvc"
)

func main() { runner.Main(teamssvc.Spec) }
