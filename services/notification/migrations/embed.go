// Package migrations embeds the goose migrations of the notification schema.
package migrations

import "embed"

// FS holds the NNNNN_name.sql files.
//
//go:embed *.sql
var FS embed.FS
