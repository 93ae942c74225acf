module bidradar/services/notification

go 1.26
