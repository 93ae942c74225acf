package postgres

import "context"

// RefreshSet is refreshSet for the tests: dims' stale groups in one pass.
func (s *Store) RefreshSet(ctx context.Context, dims string) error { return s.refreshSet(ctx, dims) }

// RefreshEach is refreshEach for the tests: every stale group one at a time.
func (s *Store) RefreshEach(ctx context.Context) error { return s.refreshEach(ctx, 1_000_000) }

// RollupDims are the dimensions kept as rollups.
var RollupDims = rollupDims
