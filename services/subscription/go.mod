module bidradar/services/subscription

go 1.26
