// A complete Seven Card Draw bot in Go: the starter for Go authors (protocol/PROTOCOL.md is the contract).
//
// Talks to the referee over ZeroMQ (github.com/go-zeromq/zmq4, pure Go: its ipc:// is a real Unix
// socket) with a DEALER socket on HARNESS_ENDPOINT, in MessagePack maps
// (github.com/vmihailenco/msgpack/v5). It says hello with HARNESS_SECRET, then answers every
// request (the strategy and the codec are in bot.go):
//
//	act  -> bets or raises the pot with Monte Carlo equity above a threshold, calls at good pot
//	        odds, else checks or folds;
//	draw -> keeps its made hand (pairs and better, four to a flush) and throws the lowest others.
//
// It exits on match_end, a fatal error, a closed connection, its parent's exit or ten minutes of
// silence. Build: make -C bots/go; check: harness check-bot --cwd bots/go -- ./bot.
// `./bot --vectors DIR` runs protocol/vectors/ (DIR) through the bot's code, without a referee.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/go-zeromq/zmq4"
)

const idleLimit = 600 * time.Second

func main() {
	if len(os.Args) == 3 && os.Args[1] == "--vectors" {
		lines, failures := runVectors(os.Args[2])
		for _, f := range failures {
			fmt.Fprintln(os.Stderr, "FAIL", f)
		}
		if len(failures) > 0 {
			os.Exit(1)
		}
		for _, l := range lines {
			fmt.Println(l)
		}
		return
	}
	os.Exit(play())
}

func play() int {
	endpoint, secret := os.Getenv("HARNESS_ENDPOINT"), os.Getenv("HARNESS_SECRET")
	if endpoint == "" || secret == "" {
		fmt.Fprintln(os.Stderr, "HARNESS_ENDPOINT and HARNESS_SECRET must be set: start me with harness check-bot -- ./bot")
		return 2
	}
	name := os.Getenv("HARNESS_BOT_NAME")
	if name == "" {
		name = "gobot"
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// One connection for the whole match: a reconnection would be a new peer the referee ignores.
	sock := zmq4.NewDealer(ctx, zmq4.WithAutomaticReconnect(false), zmq4.WithDialerRetry(100*time.Millisecond))
	defer sock.Close()
	if err := sock.Dial(endpoint); err != nil {
		fmt.Fprintf(os.Stderr, "cannot connect to %s: %v\n", endpoint, err)
		return 1
	}
	if err := sock.Send(zmq4.NewMsg(pack(Hello{"hello", 1, secret, name}))); err != nil {
		fmt.Fprintf(os.Stderr, "cannot send hello: %v\n", err)
		return 1
	}
	// A reader goroutine: frames queue in the channel, so a request with a frame behind it is seen.
	frames := make(chan []byte, 256)
	failed := make(chan error, 1)
	go func() {
		for {
			msg, err := sock.Recv()
			if err != nil {
				failed <- err
				return
			}
			if len(msg.Frames) == 1 {
				frames <- msg.Frames[0]
			}
		}
	}()
	g := &rng{uint64(time.Now().UnixNano()) | 1}
	parent := os.Getppid()
	lastSeen := time.Now()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-failed:
			fmt.Fprintf(os.Stderr, "[go-bot] the connection is gone (%v); exiting\n", err)
			return 0
		case <-tick.C:
			// PROTOCOL.md section 10: exit when the parent changes or nothing came for ten minutes.
			if os.Getppid() != parent || time.Since(lastSeen) > idleLimit {
				fmt.Fprintln(os.Stderr, "[go-bot] the referee is gone; exiting")
				return 0
			}
		case frame := <-frames:
			lastSeen = time.Now()
			// PROTOCOL.md section 8: a request with a message queued behind it has timed out; skip it.
			// zmq4 hands frames over one at a time, so give the next one a moment to show up, and look
			// again once the decision is made (a frame behind a request only ever means it timed out).
			msg := unpack(frame)
			request := msg != nil && requestOf(msg) != nil
			if request {
				if len(frames) == 0 {
					settle := time.NewTimer(time.Millisecond)
					for len(frames) == 0 && settleWait(settle) {
					}
					settle.Stop()
				}
				if len(frames) > 0 {
					fmt.Fprintln(os.Stderr, "[go-bot] skipped a request: it timed out while this bot was busy")
					continue
				}
			}
			h := handle(frame, g)
			if request && len(frames) > 0 {
				fmt.Fprintln(os.Stderr, "[go-bot] dropped a reply: its request timed out while this bot decided")
				continue
			}
			if h.reply != nil {
				if err := sock.Send(zmq4.NewMsg(h.reply)); err != nil {
					fmt.Fprintf(os.Stderr, "[go-bot] send failed: %v\n", err)
					return 1
				}
			}
			if h.exit {
				return 0
			}
		}
	}
}

// settleWait: yield to the reader goroutines; false once the timer has fired.
func settleWait(t *time.Timer) bool {
	select {
	case <-t.C:
		return false
	default:
		runtime.Gosched()
		return true
	}
}
