// Package migrations embeds the SQL migrations of the projects schema.
package migrations

import "embed"

// FS holds the NNNNN_name.sql files.
//
//go:embed *.sql
var FS embed.FS
