module github.com/agentadapter/agentadapter

go 1.25.0

require github.com/google/jsonschema-go v0.4.3
