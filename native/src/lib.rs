//! harness_core: the Seven Card Draw rules of docs/RULES.md in Rust, bound to Python with PyO3.
#![forbid(unsafe_code)]

use pyo3::prelude::*;

#[pymodule]
fn harness_core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
