module bidradar/stack

go 1.26
