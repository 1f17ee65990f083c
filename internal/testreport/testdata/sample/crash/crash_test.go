package crash

import "testing"

func TestPanics(t *testing.T) {
	done := make(chan bool)
	go func() { panic("a goroutine's panic") }()
	<-done
}
