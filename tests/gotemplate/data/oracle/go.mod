module gooracle

go 1.24
