"""Runnable examples: a policy trained with masked PPO in NumPy (``train_ppo``) and the bot that plays it (``ppo_policy``)."""
