"""The task's shell commands: setup installs the worker side, run measures.

Both read the task's envs (engine/cloud/task.py `envs`): EPOCHCOST_PACKAGES (the framework
build; setup then installs the uploaded engine, the workdir, as a project),
EPOCHCOST_CONFIG (the run, JSON), EPOCHCOST_NPROC (processes per node), EPOCHCOST_LAUNCHED_AT
(when the launch began, seconds since the epoch), and EPOCHCOST_VENV (where the worker's
environment is; default ~/epochcost-venv).

Each prints clock lines, `epochcost-clock WHAT SECONDS` (engine/cloud/log.py reads them back):
when the launch began, setup began and the run began. With the `step` events' elapsed seconds
they time the start-up (launch to the first measured step) from the log alone, for `cloud run`
and for a log collected later alike.

The worker's environment is its own Python 3.11 (uv makes it): a cloud image's Python is often
older than the engine needs. Several processes (more GPUs than one, or nodes) run through
torch.distributed.run, from SkyPilot's node environment: SKYPILOT_NODE_IPS (node 0 first),
SKYPILOT_NODE_RANK, SKYPILOT_NUM_NODES.
"""

from __future__ import annotations

CLOCK = "epochcost-clock"
RDZV_PORT = 29500

SETUP = f"""\
set -e
echo "{CLOCK} setup $(date +%s.%N)"
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader || true
VENV="${{EPOCHCOST_VENV:-$HOME/epochcost-venv}}"
python3 -m pip install --quiet --upgrade uv
python3 -m uv venv --quiet --python 3.11 "$VENV"
python3 -m uv pip install --quiet --python "$VENV/bin/python" $EPOCHCOST_PACKAGES
python3 -m uv pip install --quiet --python "$VENV/bin/python" .
echo "{CLOCK} setup-done $(date +%s.%N)"
"""

# The config's node rank and meeting place are node 0's address, known only here.
_NODE_CONFIG = (
    "import json, os, sys; c = json.loads(os.environ['EPOCHCOST_CONFIG']); "
    "c.update(node_rank=int(os.environ.get('SKYPILOT_NODE_RANK', '0')), "
    "rdzv_endpoint=sys.argv[1]); print(json.dumps(c))"
)

# Copies the worker's events through and says when the first measured step came out: the
# worker's own clock starts at its measuring loop, after the framework's import and the build.
_STAMP = f"""\
stamp() {{
  seen=""
  while IFS= read -r line; do
    printf '%s\\n' "$line"
    if [ -z "$seen" ]; then
      case "$line" in
        *'"measured":true'*|*'"measured": true'*)
          seen=1; echo "{CLOCK} first-measured $(date +%s.%N)";;
      esac
    fi
  done
}}
"""

RUN = f"""\
set -e -o pipefail
echo "{CLOCK} launched $EPOCHCOST_LAUNCHED_AT"
echo "{CLOCK} run $(date +%s.%N)"
{_STAMP}VENV="${{EPOCHCOST_VENV:-$HOME/epochcost-venv}}"
NODES="${{SKYPILOT_NUM_NODES:-1}}"
if [ "$NODES" -le 1 ] && [ "${{EPOCHCOST_NPROC:-1}}" -le 1 ]; then
  "$VENV/bin/python" -m engine.worker run --config-json "$EPOCHCOST_CONFIG" | stamp
  exit
fi
if [ "$NODES" -le 1 ]; then
  MEET="--standalone"
  CONFIG="$EPOCHCOST_CONFIG"
else
  HEAD="$(echo "$SKYPILOT_NODE_IPS" | head -n1)"
  MEET="--nnodes $NODES --node_rank $SKYPILOT_NODE_RANK --rdzv_backend c10d \\
    --rdzv_endpoint $HEAD:{RDZV_PORT}"
  CONFIG="$("$VENV/bin/python" -c "{_NODE_CONFIG}" "$HEAD:{RDZV_PORT}")"
fi
"$VENV/bin/python" -m torch.distributed.run $MEET \\
  --nproc_per_node "$EPOCHCOST_NPROC" --max_restarts 0 --monitor_interval 0.1 \\
  -m engine.worker run --data-parallel --config-json "$CONFIG" | stamp
"""
