package crashafter

import "testing"

func TestFailsFirst(t *testing.T) { t.Error("an ordinary failure") }

func TestThenCrashes(t *testing.T) {
	done := make(chan bool)
	go func() { panic("a crash after a failure") }()
	<-done
}

func TestNeverRuns(t *testing.T) {}
