//go:build !unix

package webtest

func processCPU() int64 { return -1 }
