package datasource

// What the package's own tests reach that users do not.
var (
	Summary          = summary
	SaveKind         = saveKind
	EncodeCheckedMax = encodeCheckedMax
)
