package broken

import "testing"

func TestNeverBuilds(t *testing.T) { undefinedName() }
