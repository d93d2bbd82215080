"""Runnable examples: a policy trained with masked PPO in NumPy (``train_ppo``) and the bot that plays its
weights (``ppo_policy``). Run them from the repository's top directory (``python -m examples.train_ppo``)."""
