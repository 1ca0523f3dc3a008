module github.com/modelarts-pulumi/capture_golangsdk

go 1.22

require github.com/chnsz/golangsdk v0.0.0-20260514121205-83ad1d270e52

require (
	github.com/tjfoc/gmsm v1.4.1 // indirect
	go.mongodb.org/mongo-driver v1.17.2 // indirect
	golang.org/x/crypto v0.26.0 // indirect
)

