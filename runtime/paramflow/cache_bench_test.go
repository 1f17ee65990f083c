package paramflow

import "testing"

// The hot-parameter check alone, without the runtime around it: keying an
// argument and taking a token of a value already held.
func benchCheck(b *testing.B, arg any) {
	r := NewRule("bench", 0, 1e12)
	cr := compile(&r)
	bd := bound{compiledRule: cr, values: newCache(capacityFor(1))}
	now := int64(1_000_000)
	b.ReportAllocs()
	for b.Loop() {
		var buf [keyBuf]key
		keys, _ := appendKeys(buf[:0], arg)
		for _, k := range keys {
			if !bd.passTokenBucket(k, bd.limitFor(k), 1, now) {
				b.Fatal("refused")
			}
		}
	}
}

func BenchmarkCheckInt64(b *testing.B)  { benchCheck(b, any(int64(4242))) }
func BenchmarkCheckString(b *testing.B) { benchCheck(b, any("user-12345")) }
func BenchmarkCheckFloat(b *testing.B)  { benchCheck(b, any(3.25)) }

func BenchmarkCheckInt64Parallel(b *testing.B) {
	r := NewRule("bench", 0, 1e12)
	cr := compile(&r)
	bd := bound{compiledRule: cr, values: newCache(capacityFor(1))}
	arg := any(int64(4242))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			var buf [keyBuf]key
			keys, _ := appendKeys(buf[:0], arg)
			for _, k := range keys {
				bd.passTokenBucket(k, bd.limitFor(k), 1, 1_000_000)
			}
		}
	})
}
