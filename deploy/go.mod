module bidradar/deploy

go 1.26
