// Package migrations embeds the subscription schema's SQL migrations.
package migrations

import "embed"

// FS holds NNNNN_name.sql files applied in order by pgdb.Migrate.
//
//go:embed *.sql
var FS embed.FS
