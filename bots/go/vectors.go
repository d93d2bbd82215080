// protocol/vectors/ (its README.md): messages.msgpack and hands.msgpack through this bot's code.
package main

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
)

func loadVectors(dir, name string) (map[string]any, error) {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	m := unpack(data)
	if m == nil {
		return nil, fmt.Errorf("%s: not one MessagePack map", filepath.Join(dir, name))
	}
	return m, nil
}

func vectorItems(m map[string]any, key string) []map[string]any {
	list, _ := m[key].([]any)
	out := []map[string]any{}
	for _, x := range list {
		if item, ok := x.(map[string]any); ok {
			out = append(out, item)
		}
	}
	return out
}

func vectorBytes(v map[string]any) []byte {
	data, _ := hex.DecodeString(getStr(v, "hex"))
	return data
}

// sameValue: a and b are the same MessagePack value (integers compared by value, whatever their width).
func sameValue(a, b any) bool {
	if x, ok := getUint(map[string]any{"x": a}, "x"); ok {
		y, ok2 := getUint(map[string]any{"x": b}, "x")
		return ok2 && x == y
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k := range x {
			if !sameValue(x[k], y[k]) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// runVectors: every vector checked; the replies this bot built (`reply NAME HEX` lines) and each failure.
func runVectors(dir string) ([]string, []string) {
	var lines, bad []string
	messages, err := loadVectors(dir, "messages.msgpack")
	if err != nil {
		return nil, []string{err.Error()}
	}
	hands, err := loadVectors(dir, "hands.msgpack")
	if err != nil {
		return nil, []string{err.Error()}
	}
	g := &rng{7}
	for _, v := range vectorItems(messages, "requests") {
		name, want := getStr(v, "name"), getMap(v, "read")
		msg := unpack(vectorBytes(v))
		r := requestOf(msg)
		if r == nil {
			bad = append(bad, "request "+name+": not read as a request")
			continue
		}
		num := func(k string) uint64 { return getNum(want, k) }
		ok := r.Kind == getStr(want, "type") && r.Seq == num("seq") && r.Phase == getStr(want, "phase") &&
			r.Seat == num("seat") && r.Button == num("button") && reflect.DeepEqual(r.Cards, getStrs(want, "cards")) &&
			reflect.DeepEqual(r.Stacks, getNums(want, "stacks")) && reflect.DeepEqual(r.Bets, getNums(want, "bets")) &&
			r.Pot == num("pot") && reflect.DeepEqual(r.Actions, getStrs(want, "actions")) &&
			r.CallAmount == num("call_amount") && r.MinTo == num("min_to") && r.MaxTo == num("max_to") &&
			r.MaxDiscards == num("max_discards") && r.DecisionMs == num("decision_ms") && r.BankMs == num("bank_ms")
		if !ok {
			bad = append(bad, fmt.Sprintf("request %s: read %+v, expected %v", name, *r, want))
		}
		h := handle(vectorBytes(v), g)
		reply := unpack(h.reply)
		kind := map[string]string{"act": "action", "draw": "discard"}[r.Kind]
		if seq, _ := getUint(reply, "seq"); reply == nil || getStr(reply, "type") != kind || seq != r.Seq {
			bad = append(bad, fmt.Sprintf("request %s: answered %v", name, reply))
		}
	}
	for _, v := range vectorItems(messages, "notifications") {
		exit, _ := v["exit"].(bool)
		if h := handle(vectorBytes(v), g); h.reply != nil || h.exit != exit {
			bad = append(bad, fmt.Sprintf("notification %s: reply %x exit %v, expected exit %v", getStr(v, "name"), h.reply, h.exit, exit))
		}
	}
	for _, v := range vectorItems(messages, "bad_requests") {
		if h := handle(vectorBytes(v), g); h.reply != nil || h.exit {
			bad = append(bad, fmt.Sprintf("bad request %s: reply %x exit %v, expected it ignored", getStr(v, "name"), h.reply, h.exit))
		}
	}
	for _, v := range vectorItems(messages, "replies") {
		name, d := getStr(v, "name"), getMap(v, "decision")
		var data []byte
		if action := getStr(d, "action"); action != "" {
			data = actionReply(getNum(d, "seq"), action, getNum(d, "amount"))
		} else {
			data = discardReply(getNum(d, "seq"), getStrs(d, "cards"))
		}
		if got := unpack(data); !sameValue(map[string]any(got), map[string]any(getMap(v, "value"))) {
			bad = append(bad, fmt.Sprintf("reply %s: built %v, expected %v", name, got, getMap(v, "value")))
		}
		lines = append(lines, fmt.Sprintf("reply %s %x", name, data))
	}
	checked := 0
	for _, v := range vectorItems(hands, "hands") {
		s := evaluate(cardInts(getStrs(v, "cards")))
		if categories[s.Category] != getStr(v, "category") || s.RanksText() != getStr(v, "ranks") {
			bad = append(bad, fmt.Sprintf("hand %v: %s %s, expected %s %s", getStrs(v, "cards"),
				categories[s.Category], s.RanksText(), getStr(v, "category"), getStr(v, "ranks")))
		}
		checked++
	}
	return append(lines, fmt.Sprintf("ok %d hands", checked)), bad
}
