package stat

import "testing"

func BenchmarkNodePassComplete(b *testing.B) {
	n := NewNode(true)
	now := int64(1764000000000)
	for b.Loop() {
		n.IncThreads()
		n.AddPass(now, 1)
		n.AddCompletion(now, 1, 1, false)
		n.DecThreads()
	}
}

func BenchmarkNodePassQPS(b *testing.B) {
	n := NewNode(true)
	now := int64(1764000000000)
	n.AddPass(now, 1)
	for b.Loop() {
		_ = n.PassQPS(now)
	}
}
