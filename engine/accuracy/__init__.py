"""Cost to accuracy, the parent's side: train on real data until the held-out accuracy reaches a
target or settles, repeat, and price the time it took.

Here: the study that runs one worker per batch size and repeat (study.py), statistics over
repeats (repeats.py), the cost and its projection to other machines (cost.py) and what the
parent reads of an accuracy result (result.py). The config both programs share is
engine/measure/accuracy_config.py; the worker's side (the stabilisation rule, the training loop
around a framework's Trainer, the run and its result) is engine/worker/accuracy/. A framework
adds a Trainer beside its Session in engine/worker/frameworks/<framework>/session.py (see
engine/worker/measure/session.py).
"""
