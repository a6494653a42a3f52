"""Framework environments for the worker, made on this machine (the parent's side): which build
the GPU and driver need (choice.py, from what machine.py reads), making one with uv or pip
(create.py), and the ones made (installed.py). `epochcost env create|list|remove` and the app's
Settings use them; engine/process/environments.py keeps which Python each framework's workers
run under.
"""
