// Command realtime runs the WebSocket fan-out service.
package main

import (
	"bidradar/pkg/runner"
	"bidradar/services/realtime/realtimesvc"
)

func main() { runner.Main(realtimesvc.Spec) }
