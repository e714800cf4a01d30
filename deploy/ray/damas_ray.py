"""Run Damas Zero on a Ray cluster: one learner and N self-play workers on one run location.

    python deploy/ray/damas_ray.py --run s3://bucket/runs/intl --workers 16 \
        --config configs/international.toml --learner-gpus 1

The learner is `damas train --run RUN --external-selfplay`, placed on a node with the GPU (or
CPUs) it asks for; each worker is an actor running `damas worker --run RUN` as a subprocess with
its CPU request. A worker whose process dies (killed, out of memory, node lost) takes its actor
down, and Ray restarts the actor and reruns its task (max_restarts=-1, max_task_retries=-1);
nothing is lost but the shard it was playing, which was never uploaded. Workers stop by
themselves when the learner marks the run finished; the driver then returns the learner's
exit status.

Point it at a cluster the way every Ray program is pointed: `ray start --head` on one machine
and `ray start --address HEAD:6379` on the others, or KubeRay, then run this script with
RAY_ADDRESS=HEAD:6379 (or `--address`). The `damas` binary (built with
`--features object-store`, and `cuda` for a GPU learner) must be on every node, at the path
`--damas` gives. The object store's settings (AWS_*, GOOGLE_*, AZURE_* variables) are passed
from the driver's environment to every process.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import ray


def store_env():
    """The driver's object-store settings, for the learner and the workers."""
    return {
        key: value
        for key, value in os.environ.items()
        if key.startswith(("AWS_", "GOOGLE_", "AZURE_"))
    }


@ray.remote(max_restarts=-1, max_task_retries=-1)
class Worker:
    """One `damas worker` process; the actor dies with it, so Ray restarts both."""

    def __init__(self, damas, run, extra):
        self.command = [damas, "worker", "--run", run, "--quiet", *extra]

    def run(self):
        process = subprocess.Popen(self.command)
        code = process.wait()
        if code != 0:
            print(f"damas worker exited with {code}; the actor exits so Ray restarts it",
                  file=sys.stderr, flush=True)
            os._exit(1)
        return code


@ray.remote(max_restarts=0)
class Learner:
    """`damas train --external-selfplay` on the run."""

    def run(self, damas, run, config_text, extra):
        command = [damas, "train", "--run", run, "--external-selfplay", "--quiet", *extra]
        path = None
        if config_text is not None:
            with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as file:
                file.write(config_text)
                path = file.name
            command += ["--config", path]
        try:
            return subprocess.call(command)
        finally:
            if path:
                os.unlink(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", required=True, help="run location: directory or s3://, gs://, az:// URL")
    parser.add_argument("--workers", type=int, required=True, help="self-play workers")
    parser.add_argument("--config", help="the run's config file (read here; absent: resume the run's own)")
    parser.add_argument("--damas", default="damas", help="path of the damas binary on every node")
    parser.add_argument("--address", default=None, help="Ray cluster address (default: RAY_ADDRESS or a local cluster)")
    parser.add_argument("--worker-cpus", type=float, default=1.0, help="CPUs each worker asks for")
    parser.add_argument("--learner-cpus", type=float, default=1.0, help="CPUs the learner asks for")
    parser.add_argument("--learner-gpus", type=float, default=0.0, help="GPUs the learner asks for")
    parser.add_argument("--runs", default="runs", help="the learner's local folder for its copy of the run")
    parser.add_argument("--num-cpus", type=int, default=None, help="CPUs of a local cluster started here")
    parser.add_argument("--worker-arg", action="append", default=[], help="extra argument for every `damas worker`")
    args = parser.parse_args()

    config_text = open(args.config).read() if args.config else None
    env = {"env_vars": store_env()}
    init = {"address": args.address} if args.address else {"num_cpus": args.num_cpus}
    ray.init(runtime_env=env, **init)
    learner = Learner.options(num_cpus=args.learner_cpus, num_gpus=args.learner_gpus).remote()
    learner_done = learner.run.remote(
        args.damas, args.run, config_text, ["--runs", os.path.abspath(args.runs)]
    )
    workers = [
        Worker.options(num_cpus=args.worker_cpus).remote(args.damas, args.run, args.worker_arg)
        for _ in range(args.workers)
    ]
    workers_done = [worker.run.remote() for worker in workers]
    started = time.time()
    code = ray.get(learner_done)
    print(f"learner exited with {code} after {time.time() - started:.0f}s", flush=True)
    if code == 0:
        ray.get(workers_done)
    ray.shutdown()
    sys.exit(code)


if __name__ == "__main__":
    main()
