module bidradar/services/projects

go 1.26
