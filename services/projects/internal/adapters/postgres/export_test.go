package postgres

// ColumnNames exposes the column order of CopyProjects to the tests.
var ColumnNames = columnNames
