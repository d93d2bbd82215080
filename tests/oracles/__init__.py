"""Second implementations of the rules, for tests only: each written from docs/RULES.md alone, sharing
none of the engine's code but the cards and the hand evaluator, so that a differential test can catch a
rule the engine gets wrong (two readings of one text rarely make the same mistake)."""
