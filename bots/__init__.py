"""Example bots built on the protocol SDK; each runs as `python -m bots.NAME`."""
