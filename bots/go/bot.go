// The bot's brain and wire format, without the socket (main.go has that).
//
//   - evaluate: the best five of seven cards (category and ranks), checked against the harness's
//     engine by the shared vectors (protocol/vectors/hands.msgpack, vectors.go).
//   - the wire: MessagePack maps in and out (PROTOCOL.md sections 2 and 5). Reply structs carry
//     `msgpack:"type"` tags (without them the keys are the Go field names, "Type", "Seq", ...,
//     which the referee refuses) and a discard's cards are never a nil slice (nil packs as nil,
//     not as the empty array that stands pat).
//   - strategy: Monte Carlo equity against random hands for betting, keep what plays in the draw.
package main

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/vmihailenco/msgpack/v5"
)

const ranks = "23456789TJQKA"
const suits = "cdhs"

var categories = [9]string{"high_card", "one_pair", "two_pair", "three_of_a_kind", "straight",
	"flush", "full_house", "four_of_a_kind", "straight_flush"}

// parseCard: "As" -> 51 (rank*4 + suit, as the engine's cards); -1 for anything else.
func parseCard(text string) int {
	if len(text) != 2 {
		return -1
	}
	r, s := strings.IndexByte(ranks, text[0]), strings.IndexByte(suits, text[1])
	if r < 0 || s < 0 {
		return -1
	}
	return r*4 + s
}

// Strength: category 0..8 then five ranks, most significant first (R5.3); in the wheel the ace
// plays low and comes last (R5.4).
type Strength struct {
	Category int
	Ranks    [5]int
}

// Beats: s is stronger than o (compared as the engine's values).
func (s Strength) Beats(o Strength) bool {
	if s.Category != o.Category {
		return s.Category > o.Category
	}
	for i := range s.Ranks {
		if s.Ranks[i] != o.Ranks[i] {
			return s.Ranks[i] > o.Ranks[i]
		}
	}
	return false
}

// RanksText: e.g. "777AK" (the vectors' `ranks`).
func (s Strength) RanksText() string {
	out := make([]byte, 5)
	for i, r := range s.Ranks {
		out[i] = ranks[r]
	}
	return string(out)
}

func straightTop(mask int) int {
	for top := 12; top >= 4; top-- {
		run := 0b11111 << (top - 4)
		if mask&run == run {
			return top
		}
	}
	if mask&0b1000000001111 == 0b1000000001111 {
		return 3
	}
	return -1
}

func straightRanks(top int) [5]int {
	if top == 3 {
		return [5]int{3, 2, 1, 0, 12}
	}
	return [5]int{top, top - 1, top - 2, top - 3, top - 4}
}

// evaluate: the best five of 5 to 7 distinct cards (R5.1-R5.4).
func evaluate(cards []int) Strength {
	var count [13]int
	var suitMask [4]int
	rankMask := 0
	for _, c := range cards {
		count[c/4]++
		suitMask[c%4] |= 1 << (c / 4)
		rankMask |= 1 << (c / 4)
	}
	// A flush excludes quads and a full house with at most seven cards.
	for _, m := range suitMask {
		if popcount(m) >= 5 {
			if top := straightTop(m); top >= 0 {
				return Strength{8, straightRanks(top)}
			}
			var out [5]int
			n := 0
			for r := 12; r >= 0 && n < 5; r-- {
				if m&(1<<r) != 0 {
					out[n] = r
					n++
				}
			}
			return Strength{5, out}
		}
	}
	// Ranks by count, then rank, both descending.
	type group struct{ n, r int }
	var groups []group
	for r := 12; r >= 0; r-- {
		if count[r] > 0 {
			groups = append(groups, group{count[r], r})
		}
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].n > groups[j].n })
	c0, c1 := groups[0].n, 0
	if len(groups) > 1 {
		c1 = groups[1].n
	}
	kickers := func(n int, skip ...int) []int {
		var out []int
		for r := 12; r >= 0 && len(out) < n; r-- {
			if count[r] > 0 && !contains(skip, r) {
				out = append(out, r)
			}
		}
		return out
	}
	rep := func(r, n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = r
		}
		return out
	}
	var category int
	var rs []int
	switch {
	case c0 == 4:
		category, rs = 7, append(rep(groups[0].r, 4), kickers(1, groups[0].r)...)
	case c0 == 3 && c1 >= 2:
		category, rs = 6, append(rep(groups[0].r, 3), rep(groups[1].r, 2)...)
	case straightTop(rankMask) >= 0:
		return Strength{4, straightRanks(straightTop(rankMask))}
	case c0 == 3:
		category, rs = 3, append(rep(groups[0].r, 3), kickers(2, groups[0].r)...)
	case c0 == 2 && c1 == 2:
		p, q := groups[0].r, groups[1].r
		category, rs = 2, append(append(rep(p, 2), rep(q, 2)...), kickers(1, p, q)...)
	case c0 == 2:
		category, rs = 1, append(rep(groups[0].r, 2), kickers(3, groups[0].r)...)
	default:
		category, rs = 0, kickers(5)
	}
	var out [5]int
	copy(out[:], rs)
	return Strength{category, out}
}

func popcount(m int) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// ---- the wire

// Hello, Action and Discard are the bot's messages; the tags give the protocol's keys.
type Hello struct {
	Type   string `msgpack:"type"`
	V      int    `msgpack:"v"`
	Secret string `msgpack:"secret"`
	Name   string `msgpack:"name"`
}

// Action: Amount is the "to" total of a bet or raise, 0 for fold/check/call.
type Action struct {
	Type   string `msgpack:"type"`
	V      int    `msgpack:"v"`
	Seq    uint64 `msgpack:"seq"`
	Action string `msgpack:"action"`
	Amount uint64 `msgpack:"amount"`
}

// Discard: Cards is never nil ([]string{} stands pat).
type Discard struct {
	Type  string   `msgpack:"type"`
	V     int      `msgpack:"v"`
	Seq   uint64   `msgpack:"seq"`
	Cards []string `msgpack:"cards"`
}

// pack: v as MessagePack, integers in their shortest form.
func pack(v any) []byte {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	if err := enc.Encode(v); err != nil {
		panic(err) // only plain structs are packed: a bug, not a runtime condition
	}
	return buf.Bytes()
}

func actionReply(seq uint64, action string, amount uint64) []byte {
	return pack(Action{"action", 1, seq, action, amount})
}

func discardReply(seq uint64, cards []string) []byte {
	if cards == nil {
		cards = []string{}
	}
	return pack(Discard{"discard", 1, seq, cards})
}

// unpack: one frame's map, or nil when it is not exactly one MessagePack map.
func unpack(frame []byte) map[string]any {
	reader := bytes.NewReader(frame)
	var v any
	if err := msgpack.NewDecoder(reader).Decode(&v); err != nil || reader.Len() != 0 {
		return nil
	}
	m, _ := v.(map[string]any)
	return m
}

func getMap(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

func getStr(m map[string]any, key string) string {
	v, _ := m[key].(string)
	return v
}

// getUint: a non-negative integer of any width, ok false for anything else.
func getUint(m map[string]any, key string) (uint64, bool) {
	switch x := m[key].(type) {
	case int8:
		return uint64(x), x >= 0
	case int16:
		return uint64(x), x >= 0
	case int32:
		return uint64(x), x >= 0
	case int64:
		return uint64(x), x >= 0
	case uint8:
		return uint64(x), true
	case uint16:
		return uint64(x), true
	case uint32:
		return uint64(x), true
	case uint64:
		return x, true
	}
	return 0, false
}

func getNum(m map[string]any, key string) uint64 {
	v, _ := getUint(m, key)
	return v
}

func getStrs(m map[string]any, key string) []string {
	list, _ := m[key].([]any)
	out := []string{}
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func getNums(m map[string]any, key string) []uint64 {
	list, _ := m[key].([]any)
	out := []uint64{}
	for i := range list {
		v, _ := getUint(map[string]any{"x": list[i]}, "x")
		out = append(out, v)
	}
	return out
}

// Request: what an act or draw request says, the fields a bot reads (protocol/vectors/README.md).
type Request struct {
	Kind, Phase                           string
	Seq, Seat, Button, Pot                uint64
	Cards, Actions                        []string
	Stacks, Bets                          []uint64
	Folded                                []bool
	CallAmount, MinTo, MaxTo, MaxDiscards uint64
	DecisionMs, BankMs                    uint64
}

// requestOf: nil unless msg is an act or draw request with a usable seq.
func requestOf(msg map[string]any) *Request {
	kind := getStr(msg, "type")
	seq, ok := getUint(msg, "seq")
	if (kind != "act" && kind != "draw") || !ok {
		return nil
	}
	state, legal, time := getMap(msg, "state"), getMap(msg, "legal"), getMap(msg, "time")
	folded := []bool{}
	list, _ := state["folded"].([]any)
	for _, x := range list {
		b, _ := x.(bool)
		folded = append(folded, b)
	}
	return &Request{
		Kind: kind, Seq: seq, Phase: getStr(state, "phase"), Seat: getNum(state, "seat"),
		Button: getNum(state, "button"), Pot: getNum(state, "pot"), Cards: getStrs(state, "cards"),
		Stacks: getNums(state, "stacks"), Bets: getNums(state, "bets"), Folded: folded,
		Actions: getStrs(legal, "actions"), CallAmount: getNum(legal, "call_amount"),
		MinTo: getNum(legal, "min_to"), MaxTo: getNum(legal, "max_to"), MaxDiscards: getNum(legal, "max_discards"),
		DecisionMs: getNum(time, "decision_ms"), BankMs: getNum(time, "bank_ms"),
	}
}

func (r *Request) can(action string) bool {
	for _, a := range r.Actions {
		if a == action {
			return true
		}
	}
	return false
}

// ---- strategy

// rng: a small xorshift generator.
type rng struct{ s uint64 }

func (g *rng) below(n int) int {
	g.s ^= g.s << 13
	g.s ^= g.s >> 7
	g.s ^= g.s << 17
	return int(g.s % uint64(n))
}

// equity: the chance that cards beat `opponents` random seven-card hands (ties count half).
func equity(cards []int, opponents, trials int, g *rng) float64 {
	mine := evaluate(cards)
	deck := []int{}
	for c := 0; c < 52; c++ {
		if !contains(cards, c) {
			deck = append(deck, c)
		}
	}
	score := 0.0
	for t := 0; t < trials; t++ {
		result := 1.0
		for o := 0; o < opponents; o++ {
			start := o * 7
			for i := start; i < start+7; i++ {
				j := i + g.below(len(deck)-i)
				deck[i], deck[j] = deck[j], deck[i]
			}
			theirs := evaluate(deck[start : start+7])
			if theirs.Beats(mine) {
				result = 0
				break
			}
			if !mine.Beats(theirs) {
				result = 0.5
			}
		}
		score += result
	}
	return score / float64(trials)
}

func cardInts(texts []string) []int {
	out := []int{}
	for _, t := range texts {
		if c := parseCard(t); c >= 0 {
			out = append(out, c)
		}
	}
	return out
}

// decideAct: bet or raise the pot with a strong hand, call at good pot odds, else check or fold.
func decideAct(r *Request, g *rng) (string, uint64) {
	cards := cardInts(r.Cards)
	opponents := -1
	for _, f := range r.Folded {
		if !f {
			opponents++
		}
	}
	opponents = max(1, min(opponents, 5))
	e := 0.0
	if len(cards) == 7 {
		e = equity(cards, opponents, 400, g)
	}
	strong := e > 0.5+0.05*float64(opponents)
	for _, wager := range []string{"raise", "bet"} {
		if strong && r.can(wager) {
			return wager, min(max(r.Pot+r.CallAmount, r.MinTo), r.MaxTo)
		}
	}
	if r.can("check") {
		return "check", 0
	}
	odds := float64(r.CallAmount) / float64(r.Pot+r.CallAmount)
	if r.can("call") && e*1.1 >= odds {
		return "call", 0
	}
	return "fold", 0
}

// decideDraw: the cards to throw away. With a straight or better, those outside the best five;
// else keep pairs and better (or four to a flush) and throw the lowest others, at most max_discards.
func decideDraw(r *Request) []string {
	cards := cardInts(r.Cards)
	if len(cards) != len(r.Cards) || len(cards) < 5 {
		return []string{}
	}
	limit := min(int(r.MaxDiscards), len(cards)-1)
	best := evaluate(cards)
	var count [13]int
	var suitCount [4]int
	for _, c := range cards {
		count[c/4]++
		suitCount[c%4]++
	}
	flushSuit := -1
	for s := range suitCount {
		if suitCount[s] >= 4 {
			flushSuit = s
		}
	}
	keep := func(c int) bool {
		if best.Category >= 4 {
			return contains(best.Ranks[:], c/4) && (best.Category != 5 || suitCount[c%4] >= 5)
		}
		if best.Category <= 1 && flushSuit >= 0 {
			return c%4 == flushSuit
		}
		return count[c/4] >= 2
	}
	throw := []int{}
	for _, c := range cards {
		if !keep(c) {
			throw = append(throw, c)
		}
	}
	sort.SliceStable(throw, func(i, j int) bool { return throw[i]/4 < throw[j]/4 }) // lowest first
	if best.Category >= 4 {
		limit = min(limit, len(cards)-5)
	}
	if len(throw) > limit {
		throw = throw[:limit]
	}
	out := []string{}
	for _, t := range r.Cards { // the request's order
		if contains(throw, parseCard(t)) {
			out = append(out, t)
		}
	}
	return out
}

// handled: what to do with one frame from the referee.
type handled struct {
	reply []byte // an action or discard to send, or nil
	exit  bool   // match_end or a fatal error
}

func handle(frame []byte, g *rng) handled {
	msg := unpack(frame)
	if msg == nil {
		fmt.Fprintf(os.Stderr, "[go-bot] ignored a frame that is not one MessagePack map (%d bytes)\n", len(frame))
		return handled{}
	}
	switch kind := getStr(msg, "type"); kind {
	case "act", "draw":
		r := requestOf(msg)
		if r == nil {
			fmt.Fprintln(os.Stderr, "[go-bot] ignored a request without a usable seq")
			return handled{}
		}
		if kind == "act" {
			action, amount := decideAct(r, g)
			return handled{reply: actionReply(r.Seq, action, amount)}
		}
		return handled{reply: discardReply(r.Seq, decideDraw(r))}
	case "match_end":
		return handled{exit: true}
	case "error":
		fmt.Fprintf(os.Stderr, "[go-bot] referee: %s\n", getStr(msg, "message"))
		fatal, _ := msg["fatal"].(bool)
		return handled{exit: fatal}
	case "welcome", "match_start", "hand_start", "hand_end":
		return handled{}
	default:
		fmt.Fprintf(os.Stderr, "[go-bot] ignored a message of unknown type %q\n", kind)
		return handled{}
	}
}
