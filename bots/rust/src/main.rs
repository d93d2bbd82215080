//! A complete Seven Card Draw bot in Rust: the starter for Rust authors (protocol/PROTOCOL.md is the contract).
//!
//! Talks to the referee over ZeroMQ (the `zmq` crate over libzmq: a DEALER socket on
//! HARNESS_ENDPOINT, LINGER 0) in MessagePack maps (`rmpv`). It says hello with HARNESS_SECRET, then
//! answers every request (the strategy and the codec are in src/lib.rs):
//!   act  -> bets or raises the pot with Monte Carlo equity above a threshold, calls at good pot
//!           odds, else checks or folds;
//!   draw -> keeps its made hand (pairs and better, four to a flush) and throws the lowest others.
//! It exits on match_end, a fatal error, its parent's exit or ten minutes of silence.
//! Build: make -C bots/rust; check: harness check-bot --cwd bots/rust -- ./bot.
//! `./bot --vectors DIR` runs protocol/vectors/ (DIR) through the bot's code, without a referee.
use sevencard_bot::{handle, strategy::Rng, vectors, wire, Handled};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const IDLE_LIMIT: Duration = Duration::from_secs(600);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 3 && args[1] == "--vectors" {
        match vectors::run(std::path::Path::new(&args[2])) {
            Ok(lines) => lines.iter().for_each(|l| println!("{}", l)),
            Err(failures) => {
                failures.iter().for_each(|f| eprintln!("FAIL {}", f));
                std::process::exit(1);
            }
        }
        return;
    }
    std::process::exit(play());
}

fn play() -> i32 {
    let (Ok(endpoint), Ok(secret)) = (std::env::var("HARNESS_ENDPOINT"), std::env::var("HARNESS_SECRET")) else {
        eprintln!("HARNESS_ENDPOINT and HARNESS_SECRET must be set: start me with harness check-bot -- ./bot");
        return 2;
    };
    let name = std::env::var("HARNESS_BOT_NAME").unwrap_or_else(|_| "rustbot".to_owned());
    let ctx = zmq::Context::new();
    let sock = ctx.socket(zmq::DEALER).expect("a DEALER socket");
    sock.set_linger(0).expect("LINGER 0");
    if let Err(e) = sock.connect(&endpoint) {
        eprintln!("cannot connect to {}: {}", endpoint, e);
        return 1;
    }
    if let Err(e) = sock.send(wire::hello(&secret, &name), 0) {
        eprintln!("cannot send hello: {}", e);
        return 1;
    }
    let seed = SystemTime::now().duration_since(UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64) ^ std::process::id() as u64;
    let mut rng = Rng::new(seed);
    let parent = std::os::unix::process::parent_id();
    let mut last_seen = Instant::now();
    loop {
        // Wake up every second to see whether the referee is still there (PROTOCOL.md section 10).
        match sock.poll(zmq::POLLIN, 1000) {
            Ok(0) => {
                if std::os::unix::process::parent_id() != parent || last_seen.elapsed() > IDLE_LIMIT {
                    eprintln!("[rust-bot] the referee is gone; exiting");
                    return 0;
                }
                continue;
            }
            Ok(_) => {}
            Err(e) => {
                eprintln!("[rust-bot] poll failed: {}", e);
                return 1;
            }
        }
        let frame = match sock.recv_bytes(0) {
            Ok(frame) => frame,
            Err(e) => {
                eprintln!("[rust-bot] receive failed: {}", e);
                return 1;
            }
        };
        last_seen = Instant::now();
        // PROTOCOL.md section 8: a request with a message queued behind it has timed out; skip it.
        let queued = sock.get_events().map(|e| e.contains(zmq::POLLIN)).unwrap_or(false);
        if queued && wire::unpack(&frame).is_some_and(|m| wire::Request::of(&m).is_some()) {
            eprintln!("[rust-bot] skipped a request: it timed out while this bot was busy");
            continue;
        }
        match handle(&frame, &mut rng) {
            Handled::Reply(data) => {
                if let Err(e) = sock.send(data, 0) {
                    eprintln!("[rust-bot] send failed: {}", e);
                    return 1;
                }
            }
            Handled::Exit => return 0,
            Handled::Nothing => {}
        }
    }
}
