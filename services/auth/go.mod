module bidradar/services/auth

go 1.26
