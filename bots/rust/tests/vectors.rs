//! protocol/vectors/ (the shared test vectors) through the bot's reader, replies and evaluator.
#[test]
fn the_shared_vectors_pass() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../protocol/vectors");
    if let Err(failures) = sevencard_bot::vectors::run(&dir) {
        panic!("{} vector(s) failed:\n{}", failures.len(), failures.join("\n"));
    }
}
