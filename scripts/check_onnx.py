#!/usr/bin/env python3
"""Checks an exported ONNX model with onnxruntime (Microsoft's runtime, independent of burn and
of tract) against the checkpoint it came from.

    python3 scripts/check_onnx.py CHECKPOINT_DIR [--damas target/release/damas] [--positions 20]

It exports the checkpoint with `damas export`, then for the start position and positions reached
by seeded random plies asks `damas model eval --json` for the input tensor and burn's outputs,
runs the same input through onnxruntime, and checks every policy logit and the win/draw/loss
probabilities within 1e-4. One batch of all positions is also run at once (dynamic batch axis).

onnxruntime and numpy are installed into a virtual environment under target/onnx-venv on first
use (the machine's registries must be reachable then); nothing is installed system-wide.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, "target", "onnx-venv")
TOLERANCE = 1e-4


def ensure_runtime():
    """Re-runs this script inside the venv with onnxruntime, creating it if needed."""
    try:
        import numpy  # noqa: F401
        import onnxruntime  # noqa: F401
        return
    except ImportError:
        pass
    python = os.path.join(VENV, "bin", "python")
    if os.path.abspath(sys.executable) == os.path.abspath(python):
        sys.exit("onnxruntime is still missing inside " + VENV)
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "onnxruntime", "numpy"], check=True)
    os.execv(python, [python] + sys.argv)


def main():
    ensure_runtime()
    import numpy as np
    import onnxruntime as ort

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--damas", default=os.path.join(ROOT, "target", "release", "damas"))
    parser.add_argument("--positions", type=int, default=20)
    args = parser.parse_args()

    def damas(*words):
        result = subprocess.run([args.damas, *words], capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"damas {' '.join(words)} failed:\n{result.stderr}")
        return result.stdout

    with tempfile.TemporaryDirectory() as tmp:
        model_path = os.path.join(tmp, "model.onnx")
        damas("export", "--model", args.checkpoint, "--format", "onnx", "--out", model_path)
        session = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
        meta = session.get_modelmeta().custom_metadata_map
        print(f"model: variant {meta['damas.variant']}, board {meta['damas.board']}, "
              f"encoding version {meta['damas.encoding_version']}")
        inputs = [i.name for i in session.get_inputs()]
        outputs = [o.name for o in session.get_outputs()]
        assert inputs == ["input"] and outputs == ["policy", "value"], (inputs, outputs)

        reports = []
        for seed in range(args.positions):
            plies = str(seed * 7 % 40)
            result = subprocess.run(
                [args.damas, "model", "eval", "--model", args.checkpoint, "--json",
                 "--random-plies", plies, "--seed", str(seed)],
                capture_output=True, text=True)
            if result.returncode == 0:  # a game that ended during the random plies is skipped
                reports.append(json.loads(result.stdout))

        def softmax(x):
            e = np.exp(x - x.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)

        worst = 0.0
        batch = np.stack([np.array(r["input"], dtype=np.float32).reshape(r["input_shape"][1:])
                          for r in reports])
        batch_policy, batch_value = session.run(None, {"input": batch})
        for i, report in enumerate(reports):
            x = np.array(report["input"], dtype=np.float32).reshape(report["input_shape"])
            policy, value = session.run(None, {"input": x})
            for name, ours, theirs in [
                ("policy", policy[0], report["policy_logits"]),
                ("wdl", softmax(value[0]), report["wdl"]),
                ("batched policy", batch_policy[i], report["policy_logits"]),
                ("batched wdl", softmax(batch_value[i]), report["wdl"]),
            ]:
                diff = float(np.max(np.abs(np.asarray(ours) - np.asarray(theirs, dtype=np.float32))))
                worst = max(worst, diff)
                if diff > TOLERANCE:
                    sys.exit(f"FAIL {report['fen']}: {name} differs by {diff}")
        print(f"{len(reports)} positions (and one batch of {len(reports)}): "
              f"largest difference {worst:.2e} (tolerance {TOLERANCE}): PASS")


if __name__ == "__main__":
    main()
