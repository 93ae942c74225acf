// Command projects runs the projects service:
//
//	projects [serve]                      serve RPCs (default)
//	projects migrate                      apply migrations
//	projects ingest --rss URL | --csv FILE | --ocds FILE
//	projects seed-demo N                  insert N generated demo projects
//	projects overnight-run                run today's overnight searches now
//	projects replay-dead-letters STREAM CONSUMER   publish a consumer's dead letters again
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"bidradar/pkg/logging"
	"bidradar/pkg/runner"
	"bidradar/services/projects/projectssvc"
)

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "ingest" || os.Args[1] == "seed-demo" || os.Args[1] == "overnight-run") {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		log := logging.New("projects", os.Getenv("LOG_LEVEL"))
		// A batch command with a small live heap: the default GC target
		// collected every few MB of a bulk import's garbage (~20 % of the
		// command's CPU for 100 000 CSV rows); the servers' setting keeps
		// the CPU for the database.
		runner.TuneGC()
		if err := projectssvc.Command(ctx, os.Args[1], os.Args[2:], os.Getenv, log); err != nil {
			fmt.Fprintln(os.Stderr, "projects:", err)
			os.Exit(1)
		}
		return
	}
	runner.Main(projectssvc.Spec)
}
