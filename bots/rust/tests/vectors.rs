//! protocol/vectors/ (the shared test vectors) through the bot's reader, replies and evaluator:
//! `cargo test --release` (the repository's ../../protocol/vectors, or the folder PROTOCOL_VECTORS names).
#[test]
fn the_shared_vectors_pass() {
    let dir = std::env::var_os("PROTOCOL_VECTORS").map(std::path::PathBuf::from).unwrap_or_else(|| {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../protocol/vectors")
    });
    if let Err(failures) = sevencard_bot::vectors::run(&dir) {
        panic!("{} vector(s) failed:\n{}", failures.len(), failures.join("\n"));
    }
}
