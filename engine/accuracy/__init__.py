"""Cost to accuracy: train on real data until the held-out accuracy reaches a target or
settles, repeat, and price the time it took.

Framework-neutral parts live here: the config (config.py), the stabilisation rule
(stabilisation.py), the training loop around a framework's Trainer (loop.py), the worker-side
run (runner.py, on the shared skeleton engine/measure/pipeline.py) and its result (result.py),
statistics over repeats (repeats.py), the cost and its projection to other machines (cost.py),
and the parent-side study that runs one worker per batch size and repeat (study.py). A
framework adds a Trainer beside its Session in engine/frameworks/<framework>/session.py (see
engine/measure/session.py).
"""
