"""Types of the native core (native/src): the Seven Card Draw rules of docs/RULES.md in Rust."""

__version__: str
