module bidradar/services/interests

go 1.26
