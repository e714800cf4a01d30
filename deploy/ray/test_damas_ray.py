"""Tests of the launcher's own logic, without Ray: which settings travel, and how a failing
worker process is restarted. `python3 deploy/ray/test_damas_ray.py` (Ray itself is replaced by a
stub, so nothing is installed; the Ray side is checked by scripts/distributed-loopback.sh)."""

import os
import stat
import sys
import tempfile
import types
import unittest
from unittest import mock


def stub_ray():
    """A `ray` module whose decorators return the class unchanged."""
    ray = types.ModuleType("ray")

    def remote(*args, **kwargs):
        if args and callable(args[0]) and not kwargs:
            return args[0]
        return lambda cls: cls

    ray.remote = remote
    return ray


sys.modules["ray"] = stub_ray()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import damas_ray  # noqa: E402


def fake_damas(directory, codes):
    """A `damas` that exits with the next of `codes` on each start, counting its starts."""
    counter = os.path.join(directory, "starts")
    script = os.path.join(directory, "damas")
    with open(script, "w") as file:
        file.write(
            "#!/bin/sh\n"
            f"n=$(cat {counter} 2>/dev/null || echo 0)\n"
            f"echo $((n + 1)) > {counter}\n"
            f"set -- {' '.join(str(c) for c in codes)}\n"
            "shift $n 2>/dev/null || exit 0\n"
            'exit "${1:-0}"\n'
        )
    os.chmod(script, os.stat(script).st_mode | stat.S_IEXEC)
    return script, lambda: int(open(counter).read())


class LauncherTest(unittest.TestCase):
    def test_only_endpoint_and_region_settings_travel(self):
        env = {
            "AWS_ENDPOINT": "http://127.0.0.1:9000",
            "AWS_REGION": "us-east-1",
            "AWS_ALLOW_HTTP": "true",
            "AWS_ACCESS_KEY_ID": "id",
            "AWS_SECRET_ACCESS_KEY": "secret",
            "AWS_SESSION_TOKEN": "token",
            "GOOGLE_SERVICE_ACCOUNT_KEY": "{}",
            "AZURE_STORAGE_ACCOUNT_NAME": "account",
            "AZURE_STORAGE_SAS_KEY": "sas",
            "HOME": "/root",
        }
        with mock.patch.dict(os.environ, env, clear=True):
            self.assertEqual(
                damas_ray.store_env(),
                {
                    "AWS_ENDPOINT": "http://127.0.0.1:9000",
                    "AWS_REGION": "us-east-1",
                    "AWS_ALLOW_HTTP": "true",
                    "AZURE_STORAGE_ACCOUNT_NAME": "account",
                },
            )

    def run_worker(self, codes, restarts):
        with tempfile.TemporaryDirectory() as directory:
            damas, starts = fake_damas(directory, codes)
            worker = damas_ray.Worker(damas, "run", "w000", [], restarts)
            with mock.patch.object(damas_ray.time, "sleep") as sleep:
                code = worker.run()
            return code, starts(), [call.args[0] for call in sleep.call_args_list]

    def test_a_failing_worker_is_restarted_with_backoff_until_it_ends_well(self):
        self.assertEqual(self.run_worker([1, 137, 0], restarts=5), (0, 3, [1.0, 2.0]))

    def test_a_permanent_failure_is_not_restarted(self):
        self.assertEqual(self.run_worker([1, 3, 0], restarts=5), (3, 2, [1.0]))

    def test_restarts_are_limited(self):
        code, starts, delays = self.run_worker([1] * 10, restarts=3)
        self.assertEqual((code, starts), (1, 4))
        self.assertEqual(delays, [1.0, 2.0, 4.0])

    def test_backoff_stops_growing_at_a_minute(self):
        _, _, delays = self.run_worker([1] * 9, restarts=8)
        self.assertEqual(delays[-1], 60.0)


if __name__ == "__main__":
    unittest.main()
