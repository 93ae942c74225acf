module bidradar/gateway

go 1.26
