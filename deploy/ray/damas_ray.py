"""Run Damas Zero on a Ray cluster: one learner and N self-play workers on one run location.

    python deploy/ray/damas_ray.py --run s3://bucket/runs/intl --workers 16 \
        --config configs/international.toml --learner-gpus 1

The learner is `damas train --run RUN --external-selfplay`, placed on a node with the GPU (or
CPUs) it asks for; each worker is an actor running `damas worker --run RUN --id wNNN` as a
subprocess with its CPU request. The id is the actor's index, so a restarted worker continues its
own numbering. A worker process that fails is started again by its actor after a backoff (1 s,
doubling to 60 s), at most --worker-restarts times; one that exits with status 3 (a permanent
failure: a bad config, a missing device, another release than the learner's) is not restarted.
An actor lost with its node is restarted by Ray (at most 10 times). Nothing is lost but the shard
a worker was playing, which was never uploaded. Workers stop by themselves when the learner
marks the run finished; the driver then returns the learner's exit status. The driver watches
both sides: when every worker has given up while the learner still waits for games, it stops
the learner and exits with an error instead of waiting forever.

Point it at a cluster the way every Ray program is pointed: `ray start --head` on one machine
and `ray start --address HEAD:6379` on the others, or KubeRay, then run this script with
RAY_ADDRESS=HEAD:6379 (or `--address`). The `damas` binary (built with
`--features object-store`, and `cuda` for a GPU learner) must be on every node, at the path
`--damas` gives. The object store's endpoint and region settings (AWS_ENDPOINT, AWS_REGION,
AWS_ALLOW_HTTP and the like) are passed from the driver's environment to every process; secrets
(keys, tokens, passwords) are not, because Ray shows a job's runtime environment on its
dashboard: each node reads the store with its own identity (an instance role, workload
identity, or variables set on the node).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import ray


# Store settings that are safe to show: where the store is and how to talk to it.
SHAREABLE_SUFFIXES = (
    "_ENDPOINT", "_ENDPOINT_URL", "_REGION", "_DEFAULT_REGION", "_ALLOW_HTTP",
    "_CONDITIONAL_PUT", "_VIRTUAL_HOSTED_STYLE_REQUEST", "_BUCKET", "_ACCOUNT_NAME",
)
SECRET_WORDS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "CREDENTIAL", "SAS", "SESSION")

# Exit status of `damas` for a failure that starting again cannot fix.
PERMANENT_EXIT = 3


def store_env():
    """The driver's object-store endpoint and region settings, without secrets."""
    return {
        key: value
        for key, value in os.environ.items()
        if key.startswith(("AWS_", "GOOGLE_", "AZURE_"))
        and key.endswith(SHAREABLE_SUFFIXES)
        and not any(word in key for word in SECRET_WORDS)
    }


@ray.remote(max_restarts=10, max_task_retries=10)
class Worker:
    """One `damas worker` process, started again when it fails, within limits."""

    def __init__(self, damas, run, worker_id, extra, restarts):
        self.command = [damas, "worker", "--run", run, "--id", worker_id, "--quiet", *extra]
        self.worker_id = worker_id
        self.restarts = restarts

    def run(self):
        """Runs the worker until it ends well, fails for good, or runs out of restarts; returns
        its last exit status."""
        delay = 1.0
        failures = 0
        while True:
            code = subprocess.call(self.command)
            if code == 0:
                return 0
            if code == PERMANENT_EXIT:
                print(f"worker {self.worker_id}: permanent failure (status 3), not restarted",
                      file=sys.stderr, flush=True)
                return code
            failures += 1
            if failures > self.restarts:
                print(f"worker {self.worker_id}: failed {failures} times, giving up",
                      file=sys.stderr, flush=True)
                return code
            print(f"worker {self.worker_id} exited with {code}; starting it again in {delay:.0f}s "
                  f"({failures} of {self.restarts} restarts)", file=sys.stderr, flush=True)
            time.sleep(delay)
            delay = min(delay * 2, 60.0)


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
    parser.add_argument("--worker-restarts", type=int, default=20, help="restarts of a failing worker process before it gives up")
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
        Worker.options(num_cpus=args.worker_cpus).remote(
            args.damas, args.run, f"w{index:03d}", args.worker_arg, args.worker_restarts
        )
        for index in range(args.workers)
    ]
    pending = {worker.run.remote(): index for index, worker in enumerate(workers)}
    started = time.time()
    given_up = 0
    code = None
    # Watch both sides: the learner's end, and workers that give up while it waits for games.
    while code is None:
        ready, _ = ray.wait([learner_done, *pending], num_returns=1, timeout=10)
        for ref in ready:
            if ref == learner_done:
                code = ray.get(learner_done)
                continue
            index = pending.pop(ref)
            worker_code = ray.get(ref)
            if worker_code != 0:
                given_up += 1
                print(f"worker w{index:03d} gave up with status {worker_code}", flush=True)
        if code is None and given_up == args.workers:
            print("every worker gave up; stopping the learner, which would wait for games forever",
                  file=sys.stderr, flush=True)
            ray.kill(learner)
            code = 1
    print(f"learner exited with {code} after {time.time() - started:.0f}s", flush=True)
    if code == 0 and pending:
        ray.get(list(pending))
    ray.shutdown()
    sys.exit(code)


if __name__ == "__main__":
    main()
