package datasource

import (
	"reflect"

	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
	"github.com/sentinelgen/sentinelgen/runtime/authority"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/sentinelgen/sentinelgen/runtime/system"
)

// What the package's own tests reach that users do not.
var (
	Summary          = summary
	SaveKind         = saveKind
	EncodeCheckedMax = encodeCheckedMax
)

// DashboardCarries is what Java's dashboard carries of each kind of rule.
var DashboardCarries = dashboardCarries

// UncarriedNames are the JSON names of the fields of kind's rules that
// the dashboard does not carry.
func UncarriedNames(kind Kind) []string {
	var t reflect.Type
	switch kind.Rules().(type) {
	case []flow.Rule:
		t = reflect.TypeFor[flow.Rule]()
	case []degrade.Rule:
		t = reflect.TypeFor[degrade.Rule]()
	case []system.Rule:
		t = reflect.TypeFor[system.Rule]()
	case []authority.Rule:
		t = reflect.TypeFor[authority.Rule]()
	case []paramflow.Rule:
		t = reflect.TypeFor[paramflow.Rule]()
	case []adaptive.Rule:
		t = reflect.TypeFor[adaptive.Rule]()
	}
	var names []string
	for _, f := range uncarriedFields(kind.Name(), t) {
		names = append(names, f.name)
	}
	return names
}
