module bidradar/services/realtime

go 1.26
