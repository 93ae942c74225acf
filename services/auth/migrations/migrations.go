// Package migrations embeds the auth service's SQL migrations
// (NNNNN_name.sql, applied in order by pgdb.Migrate).
package migrations

import "embed"

// FS holds the migration files.
//
//go:embed *.sql
var FS embed.FS
