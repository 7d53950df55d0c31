"""The DataLoader's iterators: one that loads in the calling process, one that drives worker
processes (tasks out through per-worker index queues, batches back through per-worker result pipes
and shared-memory slots, delivered in task order)."""
import atexit
import itertools
import multiprocessing
import multiprocessing.connection
import os
import signal
import time
import weakref

from ..profiler.events import timed_batches
from .collate import numpy_to_tensors
from .shared_memory import SlotBatch, SlotReader, make_prefix, remove_leftovers
from .worker import IterableExhausted, WorkerError, _fetch_iterable, _fetch_map, worker_loop

# How often a waiting main process checks that its workers are alive (seconds); a worker's exit
# also wakes it at once (its process sentinel).
_POLL_INTERVAL = 0.25
# How long shutdown waits for a worker to leave by itself before terminating it.
_JOIN_TIMEOUT = 0.5


class _LoaderSpec:
    """What a worker needs from the loader (inherited by fork, pickled by spawn)."""

    def __init__(self, loader, base_seed, shm_prefix):
        self.dataset = loader.dataset
        self.iterable = loader._is_iterable
        self.auto_collate = loader.auto_collate_batch
        self.collate_fn = loader._collate
        self.batch_size = loader.batch_size if self.iterable else None
        self.drop_last = loader.drop_last
        self.num_workers = loader.num_workers
        self.worker_init_fn = loader.worker_init_fn
        self.use_shared_memory = loader.use_shared_memory
        self.base_seed = base_seed
        self.shm_prefix = shm_prefix


def _index_source(loader):
    # Per-epoch tasks: index lists from the batch sampler, single indices without batching, or
    # placeholders for an iterable dataset (its workers decide when the epoch ends).
    if loader._is_iterable:
        return itertools.repeat(None)
    if loader.auto_collate_batch:
        return iter(loader.batch_sampler)
    return iter(loader._sample_sampler)


class SingleProcessIter:
    """Loads every batch in the calling process (num_workers=0)."""

    def __init__(self, loader):
        self._loader = loader
        self._iterable = loader._is_iterable
        self._it = iter(loader.dataset) if self._iterable else _index_source(loader)

    def __iter__(self):
        return self

    @timed_batches
    def __next__(self):
        lo = self._loader
        if self._iterable:
            data = _fetch_iterable(self._it, lo.batch_size, lo.drop_last, lo._collate)
            if data is None:
                raise StopIteration
        else:
            data = _fetch_map(lo.dataset, next(self._it), lo.auto_collate_batch, lo._collate)
        return numpy_to_tensors(data, self._loader._place_key)


_live_iters = weakref.WeakSet()
_prefix_counter = itertools.count()


@atexit.register
def _shutdown_live_iters():
    for it in list(_live_iters):
        it._shutdown()


def _exit_description(proc):
    code = proc.exitcode
    if code is not None and code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited unexpectedly with exit code {code}"


class MultiProcessIter:
    """Drives num_workers worker processes; keeps prefetch_factor tasks per worker in flight."""

    def __init__(self, loader):
        from .. import randint
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._persistent = loader._persistent_workers
        self._capacity = loader.prefetch_factor * loader.num_workers
        self._iterable = loader._is_iterable
        self._place_key = loader._place_key  # where batches go
        self._loader_ref = weakref.ref(loader)  # no cycle: a persistent loader holds this iterator
        self._shm_prefix = make_prefix(f"{next(_prefix_counter)}")
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self._done_event = ctx.Event()
        self._index_queues = [ctx.Queue() for _ in range(self._num_workers)]
        # One result pipe per worker (no feeder thread, one writer each): worker -> main.
        pipes = [ctx.Pipe(duplex=False) for _ in range(self._num_workers)]
        self._result_conns = [r for r, _ in pipes]
        # Free slots kept per worker: enough for a full prefetch plus the batches a loop holds.
        self._slots = SlotReader(self._num_workers, loader.prefetch_factor + 2) \
            if loader.use_shared_memory else None
        self._workers = []
        self._shut = False
        _live_iters.add(self)
        self._epoch = -1
        self._reorder = {}
        # The first tasks are drawn before the base seed, so a shuffling sampler takes the same draws
        # from oar's RNG as it does with num_workers=0: the same seed gives the same order. They are
        # held back until the workers run: a queue's put starts a feeder thread, and forking a
        # process that has threads is best avoided.
        self._held_tasks = []
        self._start_epoch(loader)
        base_seed = int(randint(0, 2**62, [1]).item())
        spec = _LoaderSpec(loader, base_seed, self._shm_prefix)
        forked = ctx.get_start_method() == "fork"
        for wid in range(self._num_workers):
            # A forked worker inherits every pipe end open here; it closes all but its own writing
            # end, so that a worker's death closes its pipe (the main process sees EOF, not a hang).
            foreign = [c for p in pipes for c in p if c is not pipes[wid][1]] if forked else []
            w = ctx.Process(target=worker_loop, daemon=True,
                            args=(spec, wid, self._index_queues[wid], pipes[wid][1], self._done_event,
                                  os.getpid(), foreign))
            w.start()
            pipes[wid][1].close()  # the worker's end now lives in the worker only
            self._workers.append(w)
        self._sentinels = {w.sentinel: wid for wid, w in enumerate(self._workers)}
        held, self._held_tasks = self._held_tasks, None
        for wid, task in held:
            self._index_queues[wid].put(task)

    # -- epochs ------------------------------------------------------------------------------
    def _start_epoch(self, loader):
        self._epoch += 1
        for wid, slot, payload in self._reorder.values():
            self._discard(wid, slot, payload)
        self._reorder = {}
        self._tasks = _index_source(loader)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_worker = {}
        self._active = [True] * self._num_workers
        self._next_worker = itertools.cycle(range(self._num_workers))
        for _ in range(self._capacity):
            if not self._put_task():
                break

    def _reset(self):
        """Starts a new epoch on the same (persistent) workers."""
        loader = self._loader_ref()
        if self._shut or loader is None:
            raise RuntimeError("DataLoader: the persistent workers of this iterator were shut down")
        self._start_epoch(loader)

    def _put_task(self):
        # Sends the next task to the next worker still running in this epoch; False when none is left.
        if not any(self._active):
            return False
        for _ in range(self._num_workers):
            wid = next(self._next_worker)
            if self._active[wid]:
                break
        try:
            indices = next(self._tasks)
        except StopIteration:
            return False
        slot, dropped = self._slots.acquire(wid) if self._slots is not None else (None, ())
        task = (self._epoch, self._send_idx, indices, slot, dropped)
        if self._held_tasks is not None:
            self._held_tasks.append((wid, task))
        else:
            self._index_queues[wid].put(task)
        self._task_worker[self._send_idx] = wid
        self._send_idx += 1
        return True

    # -- iteration ---------------------------------------------------------------------------
    def __iter__(self):
        return self

    @timed_batches
    def __next__(self):
        try:
            while True:
                if self._shut:
                    raise StopIteration
                if self._rcvd_idx == self._send_idx and not self._put_task():
                    if not self._persistent:
                        self._shutdown()
                    raise StopIteration
                if self._rcvd_idx not in self._reorder:
                    epoch, idx, wid, slot, payload = self._get_result(self._task_worker[self._rcvd_idx])
                    if epoch != self._epoch:  # left over from an epoch that was cut short
                        self._discard(wid, slot, payload)
                    else:
                        self._reorder[idx] = (wid, slot, payload)
                    continue
                wid, slot, payload = self._reorder.pop(self._rcvd_idx)
                del self._task_worker[self._rcvd_idx]
                self._rcvd_idx += 1
                if not isinstance(payload, SlotBatch):
                    self._discard(wid, slot, payload)
                if isinstance(payload, IterableExhausted):
                    self._active[payload.worker_id] = False
                    continue
                if isinstance(payload, WorkerError):
                    self._shutdown()
                    payload.reraise()
                self._put_task()
                if isinstance(payload, SlotBatch):
                    return numpy_to_tensors(self._slots.read(wid, payload), self._place_key)
                return numpy_to_tensors(payload, self._place_key)
        except (StopIteration, KeyboardInterrupt):
            raise
        except BaseException:
            self._shutdown()
            raise

    def _discard(self, wid, slot, payload):
        # Gives back the slot of a result that is not handed out as tensors.
        if self._slots is None or slot is None:
            return
        if isinstance(payload, SlotBatch):
            self._slots.discard(wid, payload)
        else:
            self._slots.release(wid, slot)

    def _get_result(self, wid):
        """The next message on worker `wid`'s pipe: a worker answers its tasks in the order it got them,
        so this is the answer to its oldest task still open (rcvd_idx's, or a stale epoch's)."""
        conn = self._result_conns[wid]
        start = time.monotonic()
        while True:
            wait = _POLL_INTERVAL
            if self._timeout > 0:
                left = self._timeout - (time.monotonic() - start)
                if left <= 0:
                    raise RuntimeError(f"DataLoader timed out: batch {self._rcvd_idx} took longer than "
                                       f"timeout={self._timeout} seconds to arrive from worker {wid}")
                wait = min(wait, left)
            if conn.poll() or conn in multiprocessing.connection.wait([conn, *self._sentinels], wait):
                try:
                    return conn.recv()
                except EOFError:  # the worker is gone (its end of the pipe closed)
                    self._workers[wid].join(_JOIN_TIMEOUT)
                    self._check_workers()
                    raise RuntimeError(f"DataLoader worker {wid} closed its result pipe") from None
            self._check_workers()

    def _check_workers(self):
        dead = [(wid, w) for wid, w in enumerate(self._workers) if not w.is_alive()]
        if dead:
            what = "; ".join(f"DataLoader worker {wid} (pid {w.pid}) {_exit_description(w)}"
                             for wid, w in dead)
            raise RuntimeError(f"{what}. A worker can die when the dataset calls os._exit or the "
                               "system kills it (for example out of memory).")

    # -- shutdown ----------------------------------------------------------------------------
    def _shutdown(self):
        if self._shut:
            return
        self._shut = True
        self._done_event.set()
        for q in self._index_queues:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + _JOIN_TIMEOUT
        for w in self._workers:
            w.join(max(0.0, deadline - time.monotonic()))
        for w in self._workers:
            if w.is_alive():
                w.terminate()
                w.join(1.0)
            if w.is_alive():
                w.kill()
                w.join()
        for q in self._index_queues:
            q.cancel_join_thread()
            q.close()
        for conn in self._result_conns:
            conn.close()
        # Slot files the workers wrote but this process never mapped are the only files under our
        # prefix: remove them all (the workers are gone, so no new one can appear). Batches already
        # handed out live on in their mappings.
        self._reorder = {}
        if self._slots is not None:
            self._slots.close()
        remove_leftovers(self._shm_prefix)
        _live_iters.discard(self)

    def __del__(self):
        try:
            self._shutdown()
        except Exception:
            pass
