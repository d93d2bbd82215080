"""Pure Seven Card Draw rules (RULES.md): cards, evaluation, hand state machine, pots. No I/O."""
