"""What scripts/distributed-loopback.sh asks of the S3 server, through boto3 (endpoint and keys
from the AWS_* variables the script sets).

    s3_probe.py create-bucket BUCKET
    s3_probe.py count BUCKET PREFIX...        shards (*.shard) under the prefixes
    s3_probe.py verify BUCKET RUN CHECK_LINE  the run's markers against its shards and the check
    s3_probe.py exists BUCKET KEY             exit status 0 if the object exists, else 1
    s3_probe.py set-generations BUCKET KEY N  rewrites a config's `generations` (its budget)
    s3_probe.py soak-verify BUCKET RUN CHECK_LINE GENERATIONS GAMES STALENESS
                                              the same for scripts/kill-soak-distributed.sh, and
                                              every generation's games and networks
"""

import json
import os
import re
import sys

import boto3


def client():
    return boto3.client(
        "s3",
        endpoint_url=os.environ["AWS_ENDPOINT"],
        region_name=os.environ.get("AWS_REGION", "us-east-1"),
    )


def keys(s3, bucket, prefix):
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    return [item["Key"] for page in pages for item in page.get("Contents", [])]


def get(s3, bucket, key):
    return s3.get_object(Bucket=bucket, Key=key)["Body"].read()


def verify(s3, bucket, run, check_line):
    fail = []
    all_keys = keys(s3, bucket, run + "/")
    if run + "/finished" not in all_keys:
        fail.append("no `finished` marker")
    checkpoints = [k for k in all_keys if re.fullmatch(rf"{run}/checkpoints/\d{{6}}/meta.json", k)]
    markers = sorted(k for k in all_keys if re.fullmatch(rf"{run}/shards/gen\d{{6}}\.done", k))
    shards = [k for k in all_keys if k.startswith(run + "/shards/") and k.endswith(".shard")]
    incoming = set(k for k in all_keys if k.startswith(run + "/incoming/"))
    samples, consumed, stale = 0, [], 0
    for marker in markers:
        done = json.loads(get(s3, bucket, marker))
        samples += done["samples"]
        consumed += done.get("consumed", [])
        stale += done.get("stale_dropped", 0)
    checked = dict(re.findall(r"(checkpoints|shards|samples) (\d+)", check_line))
    print(f"store: {len(checkpoints)} checkpoints, {len(markers)} generation markers, "
          f"{len(shards)} kept shards, {len(consumed)} consumed from workers, "
          f"{stale} stale shards dropped, {len(incoming)} left in incoming/; "
          f"markers count {samples} samples, the check read {checked.get('samples')}")
    if len(checkpoints) != 4 or int(checked.get("checkpoints", -1)) != 4:
        fail.append("expected checkpoints 0 to 3")
    if len(markers) != 3:
        fail.append("expected three generation markers")
    if int(checked.get("samples", -1)) != samples:
        fail.append("the markers' samples differ from the shards' samples")
    if len(consumed) != len(shards) or int(checked.get("shards", -1)) != len(shards):
        fail.append("kept shards differ from the consumed ones")
    if any(f"{run}/{key}" in incoming for key in consumed):
        fail.append("a consumed shard is still in incoming/")
    log = get(s3, bucket, run + "/log.txt").decode()
    if re.search(r": dropped$", log, re.MULTILINE):
        fail.append("the learner dropped a damaged shard: " + log)
    for problem in fail:
        print("FAIL:", problem)
    return not fail


def soak_verify(s3, bucket, run, check_line, generations, games, staleness):
    """A killed and resumed distributed run against what an uninterrupted one stores."""
    fail = []
    all_keys = keys(s3, bucket, run + "/")
    checkpoints = [k for k in all_keys if re.fullmatch(rf"{run}/checkpoints/\d{{6}}/meta.json", k)]
    markers = sorted(k for k in all_keys if re.fullmatch(rf"{run}/shards/gen\d{{6}}\.done", k))
    kept = set(k[len(run) + 1:] for k in all_keys
               if k.startswith(run + "/shards/") and k.endswith(".shard"))
    left = [k for k in all_keys if k.startswith(run + "/incoming/")]
    rejected = [k for k in all_keys if k.startswith(run + "/rejected/")]
    if run + "/finished" not in all_keys:
        fail.append("no `finished` marker")
    if len(checkpoints) != generations + 1:
        fail.append(f"{len(checkpoints)} checkpoints, not {generations + 1}")
    if len(markers) != generations:
        fail.append(f"{len(markers)} generation markers, not {generations}")
    consumed, samples, total_games = {}, 0, 0
    for marker in markers:
        generation = int(re.search(r"gen(\d{6})\.done$", marker).group(1))
        done = json.loads(get(s3, bucket, marker))
        samples += done["samples"]
        total_games += done["games"]
        if done["games"] != games:
            fail.append(f"generation {generation} has {done['games']} games, not {games}")
        for key in done.get("consumed", []):
            if key in consumed:
                fail.append(f"{key} counted twice: generations {consumed[key]} and {generation}")
            consumed[key] = generation
            name = key.split("/", 1)[1]
            played = int(name[1:7])
            if played < generation - 1 - staleness:
                fail.append(f"{key} (network {played}) is staler than generation {generation} allows")
            if f"shards/gen{generation:06}-{name}" not in kept:
                fail.append(f"{key}: its copy is not in shards/ under generation {generation}")
    checked = dict(re.findall(r"(checkpoints|shards|samples) (\d+)", check_line))
    if int(checked.get("samples", -1)) != samples:
        fail.append(f"the markers count {samples} samples, the check read {checked.get('samples')}")
    if len(kept) != len(consumed) or int(checked.get("shards", -1)) != len(kept):
        fail.append(f"{len(kept)} kept shards, {len(consumed)} consumed, the check read {checked.get('shards')}")
    if left:
        fail.append(f"{len(left)} shards left in incoming/: {left[:3]}")
    if rejected:
        fail.append(f"{len(rejected)} shards rejected: {rejected[:3]}")
    print(f"  store: {len(consumed)} workers' shards taken, {samples} samples, "
          f"{len(left)} in incoming/, {len(rejected)} rejected")
    print(f"counts: checkpoints {len(checkpoints)}, generation markers {len(markers)}, "
          f"games {total_games}")
    for problem in fail:
        print("FAIL:", problem)
    return not fail


def main():
    command, bucket, *rest = sys.argv[1:]
    s3 = client()
    if command == "create-bucket":
        s3.create_bucket(Bucket=bucket)
    elif command == "count":
        print(sum(k.endswith(".shard") for prefix in rest for k in keys(s3, bucket, prefix)))
    elif command == "verify":
        sys.exit(0 if verify(s3, bucket, rest[0], rest[1]) else 1)
    elif command == "exists":
        sys.exit(0 if rest[0] in keys(s3, bucket, rest[0]) else 1)
    elif command == "set-generations":
        key, generations = rest
        text = get(s3, bucket, key).decode()
        text = re.sub(r"(?m)^generations = \d+", f"generations = {int(generations)}", text)
        s3.put_object(Bucket=bucket, Key=key, Body=text.encode())
    elif command == "soak-verify":
        run, line, generations, games, staleness = rest
        ok = soak_verify(s3, bucket, run, line, int(generations), int(games), int(staleness))
        sys.exit(0 if ok else 1)
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
