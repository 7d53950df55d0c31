"""The job starter: ``python -m oar.distributed.launch`` and ``oar.distributed.spawn`` (loopback only).

Launcher runs start real processes of small scripts written here: each rank writes its PADDLE_*
environment (and its pid) to a file. Orphans are looked for by a token put in the launcher's
environment, which every rank and every process a rank starts inherits: no live process may carry it
once the launcher has exited. Every test is bounded (SIGALRM, and timeouts on every wait)."""
import importlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

launch_main = importlib.import_module("oar.distributed.launch.main")
spawn_mod = importlib.import_module("oar.distributed.spawn")

TEST_SECONDS = 120
LAUNCH = [sys.executable, "-m", "oar.distributed.launch"]

ENV_SCRIPT = r"""
import json, os, sys
rank = os.environ["PADDLE_TRAINER_ID"]
env = {k: v for k, v in os.environ.items() if k.startswith(("PADDLE_", "FLAGS_selected", "POD_NAME"))}
env["pid"] = os.getpid()
env["argv"] = sys.argv[1:]
with open(os.path.join(os.environ["OAR_TEST_OUT"], "rank%s.json" % rank), "w") as f:
    json.dump(env, f)
sys.stdout.write("hello from rank %s\n" % rank)  # one write: ranks may share the launcher's stdout
sys.stderr.write("stderr of rank %s\n" % rank)
"""

# OAR_TEST_FAIL_RANK exits 3 after OAR_TEST_FAIL_AFTER seconds; the others hang (with a child of their
# own), ignoring SIGTERM when OAR_TEST_IGNORE_TERM is set.
FAIL_SCRIPT = r"""
import os, signal, subprocess, sys, time
rank = int(os.environ["PADDLE_TRAINER_ID"])
out = os.environ["OAR_TEST_OUT"]
if rank == int(os.environ.get("OAR_TEST_FAIL_RANK", "-1")):
    time.sleep(float(os.environ.get("OAR_TEST_FAIL_AFTER", "0.5")))
    print("rank", rank, "fails now", flush=True)
    sys.exit(3)
if os.environ.get("OAR_TEST_IGNORE_TERM"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
with open(os.path.join(out, "pid%d" % rank), "w") as f:
    f.write("%d %d" % (os.getpid(), child.pid))
print("rank", rank, "hangs", flush=True)
time.sleep(300)
"""


@pytest.fixture(autouse=True)
def _time_bound():
    def expire(signum, frame):
        raise TimeoutError(f"test took more than {TEST_SECONDS}s")
    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(TEST_SECONDS)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.fixture
def job(tmp_path):
    """Scripts, an output directory and an environment carrying a fresh token."""
    (tmp_path / "env_script.py").write_text(textwrap.dedent(ENV_SCRIPT))
    (tmp_path / "fail_script.py").write_text(textwrap.dedent(FAIL_SCRIPT))
    out = tmp_path / "out"
    out.mkdir()
    token = uuid.uuid4().hex
    env = dict(os.environ, OAR_TEST_OUT=str(out), OAR_TEST_TOKEN=token, OAR_LAUNCH_RDZV_TIMEOUT="30")
    for var in list(env):
        if var.startswith(("PADDLE_", "SLURM_", "MASTER_")) or var == "POD_IP":
            del env[var]

    class Job:
        pass
    j = Job()
    j.dir, j.out, j.env, j.token = tmp_path, out, env, token
    j.env_script = str(tmp_path / "env_script.py")
    j.fail_script = str(tmp_path / "fail_script.py")
    yield j
    _kill_token(token)


def _run(args, job, env=None, timeout=60):
    return subprocess.run(LAUNCH + args, cwd=job.dir, env=env or job.env, capture_output=True, text=True,
                          timeout=timeout)


def _start(args, job, env=None):
    return subprocess.Popen(LAUNCH + args, cwd=job.dir, env=env or job.env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _ranks(out):
    result = {}
    for name in os.listdir(out):
        if name.startswith("rank") and name.endswith(".json"):
            with open(os.path.join(out, name)) as f:
                data = json.load(f)
            result[int(data["PADDLE_TRAINER_ID"])] = data
    return result


def _token_pids(token):
    """Live processes whose environment carries token."""
    needle = f"OAR_TEST_TOKEN={token}".encode()
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
            if state in (b"Z", b"X"):
                continue
            with open(f"/proc/{name}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    pids.append(int(name))
        except (OSError, IndexError):
            continue
    return pids


def _no_orphans(token, wait=5.0):
    deadline = time.monotonic() + wait
    while True:
        left = _token_pids(token)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def _kill_token(token):
    for pid in _token_pids(token):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_files(paths, timeout=30):
    deadline = time.monotonic() + timeout
    while not all(os.path.exists(p) and os.path.getsize(p) > 0 for p in paths):
        assert time.monotonic() < deadline, f"not written in {timeout}s: {paths}"
        time.sleep(0.05)


def _check_world(ranks, world, master=None):
    assert sorted(ranks) == list(range(world))
    endpoints = ranks[0]["PADDLE_TRAINER_ENDPOINTS"].split(",")
    assert len(endpoints) == world and len(set(endpoints)) == world
    for r, env in ranks.items():
        assert env["PADDLE_TRAINER_ID"] == env["PADDLE_GLOBAL_RANK"] == str(r)
        assert env["PADDLE_TRAINERS_NUM"] == env["PADDLE_GLOBAL_SIZE"] == str(world)
        assert env["PADDLE_TRAINER_ENDPOINTS"].split(",") == endpoints
        assert env["PADDLE_CURRENT_ENDPOINT"] == endpoints[r]
        assert env["PADDLE_LOCAL_RANK"] == env["PADDLE_RANK_IN_NODE"]
        assert env["PADDLE_MASTER"] == ranks[0]["PADDLE_MASTER"]
        assert env["PADDLE_DISTRI_BACKEND"] == "gloo"
        assert "FLAGS_selected_gpus" not in env
    host, port = ranks[0]["PADDLE_MASTER"].rsplit(":", 1)
    assert host == "127.0.0.1" and 0 < int(port) < 65536
    assert ranks[0]["PADDLE_MASTER"] not in endpoints
    if master:
        assert ranks[0]["PADDLE_MASTER"] == master
    return endpoints


# ------------------------------------------------------------------------------------------------
# One node


@pytest.mark.parametrize("nproc", [2, 3])
def test_single_node_env_and_logs(job, nproc):
    run = _run(["--nproc_per_node", str(nproc), job.env_script, "--lr", "0.1"], job)
    assert run.returncode == 0, run.stderr
    ranks = _ranks(job.out)
    _check_world(ranks, nproc)
    for r, env in ranks.items():
        assert env["PADDLE_LOCAL_RANK"] == str(r)
        assert env["PADDLE_LOCAL_SIZE"] == str(nproc)
        assert env["PADDLE_NNODES"] == "1"
        assert env["PADDLE_LOG_DIR"] == str(job.dir / "log")
        assert env["POD_NAME"] == ranks[0]["POD_NAME"]
        assert env["argv"] == ["--lr", "0.1"]  # options after the script are the script's
        log = (job.dir / "log" / f"workerlog.{r}").read_text()
        assert f"hello from rank {r}" in log and f"stderr of rank {r}" in log
        envlog = (job.dir / "log" / f"envlog.{r}").read_text()
        assert f"PADDLE_TRAINER_ID={r}\n" in envlog
    # Rank 0's output is echoed on the launcher's stdout, the others' are not.
    assert "hello from rank 0" in run.stdout and "stderr of rank 0" in run.stdout
    assert "hello from rank 1" not in run.stdout
    assert _no_orphans(job.token) == []


def test_single_node_explicit_master_and_log_dir(job):
    master = f"127.0.0.1:{_free_port()}"
    run = _run(["--nproc_per_node", "2", "--master", master, "--log_dir", "mylogs", "--job_id", "j1",
                "--log_overwrite", "true", job.env_script], job)
    assert run.returncode == 0, run.stderr
    _check_world(_ranks(job.out), 2, master=master)
    assert (job.dir / "mylogs" / "workerlog.1").exists()


def test_devices_select_one_gpu_per_rank(job):
    run = _run(["--gpus", "0,1", job.env_script], job)  # --nproc_per_node defaults to the device count
    assert run.returncode == 0, run.stderr
    ranks = _ranks(job.out)
    assert sorted(ranks) == [0, 1]
    assert [ranks[r]["FLAGS_selected_gpus"] for r in (0, 1)] == ["0", "1"]
    assert "PADDLE_DISTRI_BACKEND" not in ranks[0]  # Paddle sets gloo only for jobs without devices


def test_static_endpoints_from_ips(job):
    port = _free_port()
    run = _run(["--ips", "127.0.0.1", "--start_port", str(port), "--nproc_per_node", "2", job.env_script], job)
    assert run.returncode == 0, run.stderr
    ranks = _ranks(job.out)
    assert sorted(ranks) == [0, 1]
    endpoints = [f"127.0.0.1:{port}", f"127.0.0.1:{port + 1}"]
    for r, env in ranks.items():
        assert env["PADDLE_TRAINER_ENDPOINTS"] == ",".join(endpoints)
        assert env["PADDLE_CURRENT_ENDPOINT"] == endpoints[r]
        assert env["PADDLE_MASTER"] == endpoints[0]  # Paddle: the first endpoint


def test_no_log_dir_writes_to_the_launcher_output(job):
    run = _run(["--nproc_per_node", "2", "--log_dir", "", job.env_script], job)
    assert run.returncode == 0, run.stderr
    assert "hello from rank 0" in run.stdout and "hello from rank 1" in run.stdout
    assert "stderr of rank 1" in run.stderr
    assert not (job.dir / "log").exists()
    assert "PADDLE_LOG_DIR" not in _ranks(job.out)[1]


def test_env_defaults_from_paddle_variables(job):
    env = dict(job.env, PADDLE_NPROC_PER_NODE="2", PADDLE_LOG_DIR=str(job.dir / "envlogs"))
    run = _run([job.env_script], job, env=env)
    assert run.returncode == 0, run.stderr
    assert sorted(_ranks(job.out)) == [0, 1]
    assert (job.dir / "envlogs" / "workerlog.1").exists()


# ------------------------------------------------------------------------------------------------
# Several nodes on 127.0.0.1


@pytest.mark.parametrize("nproc,explicit_rank", [(1, True), (2, True), (2, False)])
def test_two_nodes_on_loopback(job, nproc, explicit_rank):
    master = f"127.0.0.1:{_free_port()}"
    procs = []
    for node in (1, 0):  # node 1 first: it waits for the rendezvous
        args = ["--nnodes", "2", "--master", master, "--nproc_per_node", str(nproc), "--log_dir", f"log{node}"]
        if explicit_rank:
            args += ["--rank", str(node)]
        procs.append(_start(args + [job.env_script], job))
    outs = [p.communicate(timeout=60) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    ranks = _ranks(job.out)
    endpoints = _check_world(ranks, 2 * nproc)
    assert ranks[0]["PADDLE_MASTER"] != master  # the rendezvous keeps --master; rank 0 serves another port
    for r, env in ranks.items():
        assert env["PADDLE_NNODES"] == "2"
        assert env["PADDLE_LOCAL_RANK"] == str(r % nproc)
        assert env["PADDLE_LOCAL_SIZE"] == str(nproc)
    # Node n's ranks are n * nproc .. n * nproc + nproc - 1, each with a log in its node's directory.
    pods = {}
    for r, env in ranks.items():
        pods.setdefault(env["POD_NAME"], []).append(r)
    assert sorted(sorted(v) for v in pods.values()) == [list(range(0, nproc)), list(range(nproc, 2 * nproc))]
    node_dirs = {ranks[0]["PADDLE_LOG_DIR"], ranks[nproc]["PADDLE_LOG_DIR"]}
    assert len(node_dirs) == 2
    if explicit_rank:
        assert ranks[0]["PADDLE_LOG_DIR"].endswith("log0") and ranks[nproc]["PADDLE_LOG_DIR"].endswith("log1")
    for r, env in ranks.items():
        assert f"hello from rank {r}" in open(os.path.join(env["PADDLE_LOG_DIR"], f"workerlog.{r % nproc}")).read()
    assert len(set(endpoints)) == 2 * nproc
    assert _no_orphans(job.token) == []


def test_uneven_nodes(job):
    master = f"127.0.0.1:{_free_port()}"
    p1 = _start(["--nnodes", "2", "--rank", "1", "--master", master, "--nproc_per_node", "1", "--log_dir", "l1",
                 job.env_script], job)
    p0 = _start(["--nnodes", "2", "--rank", "0", "--master", master, "--nproc_per_node", "3", "--log_dir", "l0",
                 job.env_script], job)
    errs = [p.communicate(timeout=60)[1] for p in (p0, p1)]
    assert p0.returncode == 0 and p1.returncode == 0, f"rank 0:\n{errs[0]}\nrank 1:\n{errs[1]}"
    ranks = _ranks(job.out)
    _check_world(ranks, 4)
    assert ranks[3]["PADDLE_LOCAL_RANK"] == "0" and ranks[3]["PADDLE_LOCAL_SIZE"] == "1"
    assert ranks[2]["PADDLE_LOCAL_RANK"] == "2" and ranks[2]["PADDLE_LOCAL_SIZE"] == "3"


def test_a_joining_launcher_serves_the_rendezvous_when_nobody_does(job):
    """The master port was busy (another socket held it) when the launcher started, so it joined;
    once the port is free and nobody answers, it takes the rendezvous over instead of timing out."""
    port = _free_port()
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", port))  # bound, not listening: binding fails, connecting is refused
    master = f"127.0.0.1:{port}"
    p0 = _start(["--nnodes", "2", "--rank", "0", "--master", master, "--nproc_per_node", "1", "--log_dir", "l0",
                 job.env_script], job)
    time.sleep(1.5)
    blocker.close()
    p1 = _start(["--nnodes", "2", "--rank", "1", "--master", master, "--nproc_per_node", "1", "--log_dir", "l1",
                 job.env_script], job)
    errs = [p.communicate(timeout=60)[1] for p in (p0, p1)]
    assert p0.returncode == 0 and p1.returncode == 0, f"rank 0:\n{errs[0]}\nrank 1:\n{errs[1]}"
    assert "joining the rendezvous" in errs[0] and "serving the rendezvous" in errs[0]
    _check_world(_ranks(job.out), 2)


def test_rendezvous_rejects_a_different_job_id(job):
    master = f"127.0.0.1:{_free_port()}"
    p0 = _start(["--nnodes", "2", "--rank", "0", "--master", master, "--job_id", "a", job.env_script], job)
    try:
        time.sleep(1.0)
        run = _run(["--nnodes", "2", "--rank", "1", "--master", master, "--job_id", "b", "--log_dir", "lb",
                    job.env_script], job)
        assert run.returncode != 0
        assert "job id mismatch" in run.stderr
    finally:
        p0.send_signal(signal.SIGTERM)
        p0.communicate(timeout=30)
    assert p0.returncode == 128 + signal.SIGTERM
    assert _ranks(job.out) == {}


def test_failure_on_one_node_stops_the_other(job):
    master = f"127.0.0.1:{_free_port()}"
    env = dict(job.env, OAR_TEST_FAIL_RANK="3", OAR_TEST_FAIL_AFTER="1.5")
    p0 = _start(["--nnodes", "2", "--rank", "0", "--master", master, "--nproc_per_node", "2", "--log_dir", "l0",
                 job.fail_script], job, env=env)
    p1 = _start(["--nnodes", "2", "--rank", "1", "--master", master, "--nproc_per_node", "2", "--log_dir", "l1",
                 job.fail_script], job, env=env)
    start = time.monotonic()
    _, err1 = p1.communicate(timeout=60)
    _, err0 = p0.communicate(timeout=60)
    assert time.monotonic() - start < 30
    assert p1.returncode == 3, err1
    assert "rank 3 (local rank 1" in err1 and "code 3" in err1 and str(job.dir / "l1" / "workerlog.1") in err1
    assert p0.returncode != 0, err0
    assert "rank 3" in err0  # node 0 says what failed on node 1
    assert _no_orphans(job.token) == []


# ------------------------------------------------------------------------------------------------
# Failures and signals


def test_failing_rank_stops_the_others(job):
    env = dict(job.env, OAR_TEST_FAIL_RANK="1")
    start = time.monotonic()
    run = _run(["--nproc_per_node", "3", job.fail_script], job, env=env, timeout=60)
    elapsed = time.monotonic() - start
    assert run.returncode == 3, run.stderr
    assert elapsed < 15
    log = str(job.dir / "log" / "workerlog.1")
    assert "rank 1 (local rank 1" in run.stderr and "exited with code 3" in run.stderr and log in run.stderr
    assert "rank 1 fails now" in run.stderr  # the tail of its log
    assert _no_orphans(job.token) == []


def test_rank_ignoring_sigterm_is_killed_after_the_grace_period(job):
    env = dict(job.env, OAR_TEST_FAIL_RANK="1", OAR_TEST_FAIL_AFTER="1.5", OAR_TEST_IGNORE_TERM="1",
               OAR_LAUNCH_GRACE_PERIOD="1")
    start = time.monotonic()
    run = _run(["--nproc_per_node", "2", job.fail_script], job, env=env, timeout=60)
    assert run.returncode == 3, run.stderr
    assert time.monotonic() - start < 15
    assert os.path.exists(job.out / "pid0")  # rank 0 was up, hanging, and was stopped
    assert "SIGKILL" in run.stderr
    assert _no_orphans(job.token) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_to_the_launcher_stops_every_rank(job, sig):
    p = _start(["--nproc_per_node", "2", job.fail_script], job)
    _wait_files([job.out / "pid0", job.out / "pid1"])
    assert len(_token_pids(job.token)) >= 5  # launcher, 2 ranks, 2 children of ranks
    p.send_signal(sig)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 128 + sig, err
    assert _no_orphans(job.token) == []


def test_ranks_and_their_children_die_with_a_killed_launcher(job):
    p = _start(["--nproc_per_node", "2", job.fail_script], job)
    _wait_files([job.out / "pid0", job.out / "pid1"])
    rank_pids = [int(open(job.out / f"pid{r}").read().split()[0]) for r in (0, 1)]
    assert all(pid in _token_pids(job.token) for pid in rank_pids)
    p.kill()  # no chance to clean up: the kernel (PDEATHSIG) and the reaper do
    p.communicate(timeout=30)
    assert _no_orphans(job.token, wait=10) == []


# ------------------------------------------------------------------------------------------------
# Slurm


def _slurm_env(job, procid, ntasks, nnodes, nodeid, localid, jobid, tasks_per_node):
    return dict(job.env, SLURM_PROCID=str(procid), SLURM_NTASKS=str(ntasks), SLURM_NNODES=str(nnodes),
                SLURM_NODEID=str(nodeid), SLURM_LOCALID=str(localid), SLURM_JOB_ID=str(jobid), SLURM_STEP_ID="0",
                SLURM_STEP_NUM_TASKS=str(ntasks), SLURM_STEP_NUM_NODES=str(nnodes),
                SLURM_STEP_TASKS_PER_NODE=tasks_per_node, SLURM_STEP_NODELIST="localhost",
                SLURM_LAUNCH_NODE_IPADDR="127.0.0.1")


def _free_slurm_job_id():
    for _ in range(200):
        jobid = random.randrange(1, 10 ** 7)
        port = launch_main._slurm_port({"SLURM_JOB_ID": str(jobid), "SLURM_STEP_ID": "0"})
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", port))
            return jobid
        except OSError:
            continue
    pytest.skip("no free port for a fake Slurm job")


def test_slurm_world_from_the_environment():
    env = {"SLURM_PROCID": "3", "SLURM_NTASKS": "4", "SLURM_NNODES": "2", "SLURM_NODEID": "1", "SLURM_LOCALID": "1",
           "SLURM_STEP_ID": "5", "SLURM_JOB_ID": "777", "SLURM_TASKS_PER_NODE": "2(x2)",
           "SLURM_STEP_NODELIST": "gpu[07-08]", "SLURM_LAUNCH_NODE_IPADDR": "10.0.0.1"}
    world = launch_main._slurm_world(env)
    assert world == {"nnodes": 4, "rank": 3, "master": ("gpu07", 20000 + (777 * 64 + 5) % 20000), "machines": 2,
                     "local_index": 1, "tasks_here": 2}
    one_per_node = dict(env, SLURM_NTASKS="2", SLURM_PROCID="1", SLURM_LOCALID="0", SLURM_TASKS_PER_NODE="1(x2)")
    world = launch_main._slurm_world(one_per_node)
    assert (world["nnodes"], world["rank"], world["local_index"], world["tasks_here"]) == (2, 1, 0, 1)
    # A batch script (no step) and a one-task step are not multi-node jobs.
    batch = {k: v for k, v in env.items() if k != "SLURM_STEP_ID"}
    assert launch_main._slurm_world(batch) is None
    assert launch_main._slurm_world(dict(env, SLURM_NTASKS="1", SLURM_PROCID="0"))["master"] is None
    # Without a node list the master is the launch node.
    no_list = {k: v for k, v in env.items() if k != "SLURM_STEP_NODELIST"}
    assert launch_main._slurm_world(no_list)["master"][0] == "10.0.0.1"


def test_slurm_hostlists_and_task_counts():
    assert launch_main._expand_hostlist("node[01-03,07],gpu5") == ["node01", "node02", "node03", "node07", "gpu5"]
    assert launch_main._expand_hostlist("r[1-2]-n[1-2]") == ["r1-n1", "r1-n2", "r2-n1", "r2-n2"]
    assert launch_main._expand_hostlist("a,b") == ["a", "b"]
    assert launch_main._expand_counts("2(x3),1") == [2, 2, 2, 1]


@pytest.mark.parametrize("machines", [2, 1])
def test_slurm_two_tasks(job, machines):
    """Two srun tasks: on two machines (one launcher each) or on one machine (local ranks continue
    across the tasks, logs in one directory)."""
    jobid = _free_slurm_job_id()
    procs = []
    for task in (1, 0):
        nodeid, localid = (task, 0) if machines == 2 else (0, task)
        env = _slurm_env(job, task, 2, machines, nodeid, localid, jobid, "1(x2)" if machines == 2 else "2")
        log_dir = f"log{task}" if machines == 2 else "log"
        procs.append(_start(["--nproc_per_node", "2", "--log_dir", log_dir, "--job_id", job.token, job.env_script],
                            job, env=env))
    for p in procs:
        _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        assert "Slurm step" in err
    ranks = _ranks(job.out)
    _check_world(ranks, 4)
    for r, env in ranks.items():
        assert env["PADDLE_NNODES"] == str(machines)
        if machines == 2:
            assert env["PADDLE_LOCAL_RANK"] == str(r % 2) and env["PADDLE_LOCAL_SIZE"] == "2"
        else:
            assert env["PADDLE_LOCAL_RANK"] == str(r) and env["PADDLE_LOCAL_SIZE"] == "4"
            assert f"hello from rank {r}" in (job.dir / "log" / f"workerlog.{r}").read_text()
    assert _no_orphans(job.token) == []


def test_explicit_options_override_slurm(job):
    env = _slurm_env(job, 1, 2, 2, 1, 0, 4242, "1(x2)")
    run = _run(["--nnodes", "1", "--nproc_per_node", "2", job.env_script], job, env=env)
    assert run.returncode == 0, run.stderr
    ranks = _ranks(job.out)
    _check_world(ranks, 2)
    assert ranks[1]["PADDLE_NNODES"] == "1"


# ------------------------------------------------------------------------------------------------
# Bad command lines


@pytest.mark.parametrize("args,message", [
    (["--bogus", "1"], "unrecognized arguments: --bogus"),
    (["--nnodes", "2"], "needs --master"),
    (["--nproc_per_node", "0"], "--nproc_per_node must be at least 1"),
    (["--nnodes", "2:4", "--master", "127.0.0.1:1234"], "elastic ranges"),
    (["--nnodes", "2", "--rank", "2", "--master", "127.0.0.1:1234"], "--rank 2 is not a node rank"),
    (["--master", "127.0.0.1"], "expected ADDR:PORT"),
    (["--run_mode", "ps"], "only 'collective'"),
    (["--master", "10.255.255.1:1234"], "must be an address of this machine"),
    (["--master", "etcd://127.0.0.1:2379"], "etcd masters"),
])
def test_bad_flags_are_clear_errors(job, args, message):
    run = _run(args + [job.env_script], job, timeout=30)
    assert run.returncode != 0
    assert message in run.stderr, run.stderr
    assert _ranks(job.out) == {}


def test_master_port_in_use_is_a_clear_error(job):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        run = _run(["--nproc_per_node", "2", "--master", f"127.0.0.1:{port}", job.env_script], job, timeout=30)
    assert run.returncode == 1
    assert f"--master 127.0.0.1:{port}: the port is in use" in run.stderr
    assert _ranks(job.out) == {}


def test_bad_paddle_variable_is_named(job):
    run = _run([job.env_script], job, env=dict(job.env, PADDLE_NNODES="two"), timeout=30)
    assert run.returncode == 2 and "PADDLE_NNODES expects a number of nodes" in run.stderr


def test_missing_script(job):
    run = _run(["--nproc_per_node", "2"], job, timeout=30)
    assert run.returncode == 2 and "training_script" in run.stderr
    run = _run(["--nproc_per_node", "2", "no_such_script.py"], job, timeout=30)
    assert run.returncode == 2 and "no_such_script.py" in run.stderr and "not found" in run.stderr


# ------------------------------------------------------------------------------------------------
# spawn (the functions run in spawned children: top level, so that they pickle)


def _spawn_env(out_dir, scale):
    env = {k: v for k, v in os.environ.items() if k.startswith("PADDLE_")}
    with open(os.path.join(out_dir, f"rank{env['PADDLE_TRAINER_ID']}.json"), "w") as f:
        json.dump(env, f)
    return int(env["PADDLE_TRAINER_ID"]) * scale


def _spawn_fail(out_dir):
    rank = int(os.environ["PADDLE_TRAINER_ID"])
    if rank == 1:
        raise ValueError(f"boom from rank {rank}")
    # Written then renamed: the parent may stop this child between open and write,
    # and the test must never read a half-written pid file.
    tmp = os.path.join(out_dir, f".tmp{rank}")
    with open(tmp, "w") as f:
        f.write(str(os.getpid()))
    os.replace(tmp, os.path.join(out_dir, f"pid{rank}"))
    time.sleep(300)


def _spawn_exit(code):
    if os.environ["PADDLE_TRAINER_ID"] == "0":
        sys.exit(code)


def _spawn_big():
    return b"x" * (1 << 20)


def test_spawn_env_and_results(tmp_path):
    ctx = spawn_mod.spawn(_spawn_env, args=(str(tmp_path), 10), nprocs=3)
    assert [q.get() for q in ctx.return_queues] == [0, 10, 20]
    assert all(p.exitcode == 0 for p in ctx.processes)
    ranks = _ranks(tmp_path)
    _check_world(ranks, 3)
    for r, env in ranks.items():
        assert env["PADDLE_LOCAL_RANK"] == str(r) and env["PADDLE_LOCAL_SIZE"] == "3"
        assert env["PADDLE_NNODES"] == "1"


def test_spawn_join_false_and_options(tmp_path):
    master = f"127.0.0.1:{_free_port()}"
    ctx = spawn_mod.spawn(_spawn_env, args=(str(tmp_path), 1), nprocs=2, join=False, ips="127.0.0.1", master=master)
    deadline = time.monotonic() + 60
    while not ctx.join(timeout=1):
        assert time.monotonic() < deadline
    assert [q.get() for q in ctx.return_queues] == [0, 1]
    _check_world(_ranks(tmp_path), 2, master=master)


def test_spawn_large_result_does_not_block():
    ctx = spawn_mod.spawn(_spawn_big, nprocs=2)
    assert [len(q.get()) for q in ctx.return_queues] == [1 << 20, 1 << 20]


def test_spawn_reraises_a_child_exception_naming_the_rank(tmp_path):
    with pytest.raises(spawn_mod.ProcessRaisedException) as info:
        spawn_mod.spawn(_spawn_fail, args=(str(tmp_path),), nprocs=3)
    err = info.value
    assert err.rank == 1 and err.error_type == "ValueError"
    text = str(err)
    assert "Process 1 (rank 1" in text and "ValueError: boom from rank 1" in text and "Traceback" in text
    assert "_spawn_fail" in text  # the child's frames
    # The others (sleeping) were stopped.
    for name in os.listdir(tmp_path):
        if name.startswith("pid"):
            pid = int(open(tmp_path / name).read())
            if os.path.exists(f"/proc/{pid}"):
                assert open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"  # reaped soon


def test_spawn_exit_code():
    with pytest.raises(spawn_mod.ProcessExitedException, match=r"Process 0 \(rank 0.*exit code 4"):
        spawn_mod.spawn(_spawn_exit, args=(4,), nprocs=2)


def test_spawn_bad_arguments():
    with pytest.raises(ValueError, match="not supported"):
        spawn_mod.spawn(_spawn_exit, args=(0,), nprocs=1, bogus=1)
    with pytest.raises(ValueError, match="nprocs"):
        spawn_mod.spawn(_spawn_exit, args=(0,), nprocs=0)
    with pytest.raises(ValueError, match="backend"):
        spawn_mod.spawn(_spawn_exit, args=(0,), nprocs=1, backend="nccl")
    with pytest.raises(ValueError, match="one address"):
        spawn_mod.spawn(_spawn_exit, args=(0,), nprocs=1, ips="127.0.0.1,127.0.0.2")
    with pytest.raises(ValueError, match="must be an address of this machine"):
        spawn_mod.spawn(_spawn_exit, args=(0,), nprocs=1, master="10.255.255.1:1234")
    with pytest.warns(DeprecationWarning):
        spawn_mod.spawn(_spawn_exit, args=(0,), nprocs=1, started_port=6170)


def test_spawn_default_nprocs_is_the_usable_cpu_count():
    n = spawn_mod._default_nprocs({})
    assert 1 <= n <= (os.cpu_count() or 1)
    assert n <= len(os.sched_getaffinity(0))
    assert spawn_mod._default_nprocs({"gpus": "0,1,2"}) == 3


def test_spawn_is_oar_distributed_spawn():
    import oar.distributed
    assert oar.distributed.spawn is spawn_mod.spawn
