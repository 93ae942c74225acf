package domain

import (
	"strings"

	"bidradar/pkg/thaitext"
)

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func normKey(s string) string { return thaitext.Normalize(s) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }
