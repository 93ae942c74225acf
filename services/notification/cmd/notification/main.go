// Command notification runs the notification service (subcommands: serve, migrate, replay-dead-letters).
package main

import (
	"bidradar/pkg/runner"
	"bidradar/services/notification/notificationsvc"
)

func main() { runner.Main(notificationsvc.Spec) }
