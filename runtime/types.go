package runtime

import "strconv"

// TrafficType is Java's EntryType: whether a call enters the service from
// outside (Inbound) or leaves it (Outbound). Only inbound calls count toward
// system rules.
type TrafficType uint8

const (
	Outbound TrafficType = iota // Java's EntryType.OUT, the default
	Inbound                     // Java's EntryType.IN
)

func (t TrafficType) String() string {
	switch t {
	case Outbound:
		return "out"
	case Inbound:
		return "in"
	}
	return "TrafficType(" + strconv.Itoa(int(t)) + ")"
}

// ResourceType classifies a resource, as Java's ResourceTypeConstants.
type ResourceType uint8

const (
	Common     ResourceType = iota // COMMON = 0
	Web                            // COMMON_WEB = 1
	RPC                            // COMMON_RPC = 2
	APIGateway                     // COMMON_API_GATEWAY = 3
	DBSQL                          // COMMON_DB_SQL = 4
	Cache                          // 5
	MQ                             // 6
)

var resourceTypeNames = [...]string{"common", "web", "rpc", "gateway", "db", "cache", "mq"}

func (t ResourceType) String() string {
	if int(t) < len(resourceTypeNames) {
		return resourceTypeNames[t]
	}
	return "ResourceType(" + strconv.Itoa(int(t)) + ")"
}

// ParseResourceType maps the directive's names (common, web, rpc, gateway,
// db, cache, mq) to a ResourceType.
func ParseResourceType(s string) (ResourceType, bool) {
	for i, n := range resourceTypeNames {
		if n == s {
			return ResourceType(i), true
		}
	}
	return 0, false
}

// BlockType says which kind of rule blocked a call.
type BlockType uint8

const (
	BlockFlow      BlockType = iota + 1 // a flow rule (FlowException)
	BlockDegrade                        // an open circuit breaker (DegradeException)
	BlockSystem                         // a system rule (SystemBlockException)
	BlockAuthority                      // an authority rule (AuthorityException)
	BlockParamFlow                      // a hot-parameter rule (ParamFlowException)
	BlockAdaptive                       // an adaptive concurrency limit (package runtime/adaptive; no Java counterpart)
	// BlockCustom is a slot registered by the application. It stays the
	// last type, so that BlockFlow ... BlockCustom covers every type.
	BlockCustom
)

var blockTypeNames = [...]string{"", "flow", "degrade", "system", "authority", "paramflow", "adaptive", "custom"}

func (t BlockType) String() string {
	if t > 0 && int(t) < len(blockTypeNames) {
		return blockTypeNames[t]
	}
	return "BlockType(" + strconv.Itoa(int(t)) + ")"
}
