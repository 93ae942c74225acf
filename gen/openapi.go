// Package gen holds the code generated from proto/ by `make generate`
// (subfolders, never edited by hand) and this embed of the merged OpenAPI document.
package gen

import _ "embed"

// OpenAPI is the merged OpenAPI v2 document of every REST path (gateway/http_rules.yaml).
//
//go:embed openapi/api.swagger.json
var OpenAPI []byte
