"""The `modelarts` Pulumi provider plugin: the package's resources for any language (YAML, TypeScript, Go, ...),
`pulumi import` and customTimeouts, served by the same providers the Python program's dynamic resources use.

    doors.py     the resource types served: one row each, naming the dynamic provider class behind it
    provider.py  the engine's provider protocol -> those providers' check/diff/create/read/update/delete
    values.py    protocol property values <-> the plain values the providers take
    schema.py    the package schema, from the providers' pydantic models
    serve.py     the gRPC server the engine starts (plugin/modelarts/ in the repository is the plugin directory)
"""
