"""The wire contract between referee and bots, and the Python bot SDK. Imports nothing from harness."""
