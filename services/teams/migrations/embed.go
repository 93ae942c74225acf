// Package migrations embeds the SQL migrations of the teams schema.
package migrations

import "embed"

// FS holds the NNNNN_name.sql files.
//
//go:embed *.sql
var FS embed.FS
