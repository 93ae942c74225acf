package postgres

// ColumnNames exposes the column order of CopyProjects to the tests.
var ColumnNames = columnNames

// RetryOnDeadlock exposes the deadlock retry to the tests.
var RetryOnDeadlock = retryOnDeadlock
