module bidradar/gen

go 1.26
