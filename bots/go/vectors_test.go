package main

import "testing"

// TestVectors runs protocol/vectors/ (the shared test vectors) through the bot's reader, replies and evaluator.
func TestVectors(t *testing.T) {
	_, failures := runVectors("../../protocol/vectors")
	for _, f := range failures {
		t.Error(f)
	}
}
