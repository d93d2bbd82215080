package main

import (
	"os"
	"testing"
)

// TestVectors runs protocol/vectors/ (the shared test vectors) through the bot's reader, replies and
// evaluator: the repository's ../../protocol/vectors, or the folder PROTOCOL_VECTORS names.
func TestVectors(t *testing.T) {
	dir := os.Getenv("PROTOCOL_VECTORS")
	if dir == "" {
		dir = "../../protocol/vectors"
	}
	_, failures := runVectors(dir)
	for _, f := range failures {
		t.Error(f)
	}
}
