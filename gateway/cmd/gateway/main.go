// Command gateway runs BidRadar's public HTTP origin.
package main

import (
	"bidradar/gateway/gw"
	"bidradar/pkg/runner"
)

func main() { runner.Main(gw.Spec) }
