package postgres

// CopyProjects exposes the binary COPY encoder to the tests.
var CopyProjects = copyProjects
