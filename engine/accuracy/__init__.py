"""Cost to accuracy: train on real data until the held-out accuracy reaches a target or
settles, repeat, and price the time it took.

Framework-neutral parts live here: the config (config.py), the stabilisation rule
(stabilisation.py), the training loop around a backend's Trainer (loop.py), the worker-side
run (runner.py) and its result (result.py), statistics over repeats (repeats.py), the cost
and its projection to other machines (cost.py), and the parent-side study that runs one
worker per batch size and repeat (study.py). A framework adds a Trainer in
engine/frameworks/<framework>_accuracy.py (see engine/frameworks/trainer.py).
"""
