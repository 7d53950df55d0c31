"""fleet's datasets (paddle.distributed.QueueDataset, InMemoryDataset): files in the MultiSlot
text protocol (per sample a line; per slot its number of values, then the values), piped through
a shell command, read into slot records.

A dataset is configured with ``init(batch_size, thread_num, use_var, pipe_command, ...)``: the
variables of `use_var` (from oar.static.data) name the slots and their types (int64 -> 'uint64',
float32 -> 'float'), and ``_desc()`` prints the DataFeedDesc text Paddle's executor reads.
InMemoryDataset loads every file (``<pipe_command> < <file>`` in a shell, `thread_num` files at a
time) into memory, where it can be counted, shuffled locally or across the job's workers,
released. A line that does not hold every slot is a ValueError naming the line. Paddle consumes
datasets in static programs (Executor.train_from_dataset), which oar's executor does not
have: the records are read and kept, as in Paddle's dynamic mode.
"""
import concurrent.futures
import random
import subprocess
import threading

import numpy as np

__all__ = []

_BAD_LINE = ("The number of ids can not be zero, you need padding it in data generator; or if there is something "
             "wrong with the data, please check if the data contains unresolvable characters.\n"
             "please check this error line: {}")


class _Slot:
    def __init__(self, name, type_, shape):
        self.name = name
        self.type = type_
        self.is_dense = True
        self.is_used = True
        self.shape = list(shape)


class _DataFeedDesc:
    """The fields of Paddle's DataFeedDesc that the datasets set, printed as protobuf text."""

    def __init__(self):
        self.name = None
        self.batch_size = None
        self.slots = []
        self.uid_slot = None
        self.pipe_command = "cat"
        self.input_type = None

    def __str__(self):
        out = []
        if self.name is not None:
            out.append(f'name: "{self.name}"')
        if self.batch_size is not None:
            out.append(f"batch_size: {self.batch_size}")
        if self.slots or self.uid_slot is not None:
            out.append("multi_slot_desc {")
            for s in self.slots:
                out += ["  slots {", f'    name: "{s.name}"', f'    type: "{s.type}"',
                        f"    is_dense: {'true' if s.is_dense else 'false'}",
                        f"    is_used: {'true' if s.is_used else 'false'}"]
                out += [f"    shape: {d}" for d in s.shape]
                out.append("  }")
            if self.uid_slot is not None:
                out.append(f'  uid_slot: "{self.uid_slot}"')
            out.append("}")
        out.append(f'pipe_command: "{self.pipe_command}"')
        if self.input_type is not None:
            out.append(f"input_type: {self.input_type}")
        return "\n".join(out) + "\n"


def _parse_line(line, slots, parse_ins_id, parse_content):
    """One record: (ins_id, content, [values per slot]) from a MultiSlot line."""
    tokens = line.split()
    pos = 0
    ins_id = content = None
    try:
        if parse_ins_id:
            ins_id = tokens[pos]
            pos += 1
        if parse_content:
            content = tokens[pos]
            pos += 1
        values = []
        for s in slots:
            num = int(tokens[pos])
            pos += 1
            if num <= 0 or pos + num > len(tokens):
                raise ValueError
            raw = tokens[pos:pos + num]
            pos += num
            if s.type == "float":
                values.append(np.array([float(t) for t in raw], dtype=np.float32))
            else:
                values.append(np.array([int(t) for t in raw], dtype=np.uint64))
    except (ValueError, IndexError, OverflowError):
        raise ValueError(_BAD_LINE.format(line.rstrip("\n"))) from None
    return ins_id, content, values


class DatasetBase:
    """The configuration shared by fleet's datasets (init, set_filelist, the DataFeedDesc)."""

    def __init__(self):
        self.proto_desc = _DataFeedDesc()
        self.thread_num = 1
        self.filelist = []
        self.use_ps_gpu = False
        self.psgpu = None
        self._fs_name = ""
        self._fs_ugi = ""
        self._download_cmd = "cat"

    def init(self, batch_size=1, thread_num=1, use_var=None, pipe_command="cat", input_type=0, fs_name="",
             fs_ugi="", download_cmd="cat"):
        """Sets the batch size, the number of reader threads, the slot variables, the pipe
        command every file goes through, the input type (0: a sample a line, 1: a batch) and
        the HDFS settings.

        Examples:
            >>> import oar
            >>> oar.enable_static()
            >>> ids = oar.static.data(name="ids", shape=[-1, 1], dtype="int64")
            >>> oar.disable_static()
            >>> ds = oar.distributed.QueueDataset()
            >>> ds.init(batch_size=2, use_var=[ids])
            >>> print(ds.proto_desc.batch_size, ds.proto_desc.slots[0].type)
            2 uint64
        """
        self._set_batch_size(batch_size)
        self._set_thread(thread_num)
        self._set_use_var(use_var or [])
        self._set_pipe_command(pipe_command)
        self._set_input_type(input_type)
        self._set_hdfs_config(fs_name, fs_ugi)
        self._set_download_cmd(download_cmd)

    def _set_pipe_command(self, pipe_command):
        self.proto_desc.pipe_command = pipe_command

    def _set_batch_size(self, batch_size):
        self.proto_desc.batch_size = batch_size

    def _set_thread(self, thread_num):
        self.thread_num = thread_num

    def set_filelist(self, filelist):
        """The files this worker reads.

        Examples:
            >>> import oar
            >>> ds = oar.distributed.InMemoryDataset()
            >>> ds.set_filelist(["a.txt", "b.txt"])
            >>> print(ds.filelist)
            ['a.txt', 'b.txt']
        """
        if not isinstance(filelist, (list, tuple)) or not all(isinstance(f, str) for f in filelist):
            raise TypeError(f"set_filelist: filelist must be a list of file names (str), got {filelist!r}")
        self.filelist = filelist

    def _set_input_type(self, input_type):
        self.proto_desc.input_type = input_type

    def _set_uid_slot(self, uid_slot):
        self.proto_desc.uid_slot = uid_slot

    def _set_use_var(self, var_list):
        from ... import float32, int64
        for var in var_list:
            name = getattr(var, "name", None)
            if var.dtype == float32:
                type_ = "float"
            elif var.dtype == int64:
                type_ = "uint64"
            else:
                raise ValueError("Currently, paddle.distributed.fleet.dataset only supports dtype=float32 and "
                                 "dtype=int64")
            if not name:
                raise ValueError("dataset use_var: each variable needs a name (make them with oar.static.data)")
            self.proto_desc.slots.append(_Slot(name, type_, var.shape))

    def _set_hdfs_config(self, fs_name, fs_ugi):
        self._fs_name, self._fs_ugi = fs_name, fs_ugi

    def _set_download_cmd(self, download_cmd):
        self._download_cmd = download_cmd

    def _set_use_ps_gpu(self, use_ps_gpu):
        self.use_ps_gpu = 0   # oar has no heterogeneous parameter server (HeterPS)

    def _desc(self):
        return str(self.proto_desc)

    def _prepare_to_run(self):
        if self.thread_num > len(self.filelist):
            self.thread_num = len(self.filelist)
        if self.thread_num <= 0:
            self.thread_num = 1

    def _finish_to_run(self):
        pass

    def _dynamic_adjust_before_train(self, thread_num):
        pass

    def _dynamic_adjust_after_train(self):
        pass

    def _check_use_var_with_data_generator(self, var_list, data_generator_class, test_file):
        """Checks a data generator's samples from test_file against the slot variables (count,
        non-empty, int/float as the variable's dtype)."""
        from ... import float32, int32, int64
        with open(test_file) as f:
            for line in f:
                for sample in data_generator_class.generate_sample(line)():
                    if len(var_list) != len(sample):
                        raise ValueError(f"var length mismatch error: var_list = {len(var_list)} vs data_generator "
                                         f"= {len(sample)}")
                    for i, (name, values) in enumerate(sample):
                        if len(values) == 0:
                            raise ValueError(f"var length error: var {name}'s length in data_generator is 0")
                        if var_list[i].dtype == float32 and not all(isinstance(v, float) for v in values):
                            raise TypeError(
                                f"var dtype mismatch error: var name = {name}, var type in var_list = float, while var "
                                f"in data_generator contains non-float value, which is {values} \n"
                                "Please check if order of var_list and data_generator are aligned. \n"
                                "Please check if var's type in data_generator is correct.")
                        if var_list[i].dtype in (int64, int32) and not all(isinstance(v, int) for v in values):
                            raise TypeError(
                                f"var dtype mismatch error: var name = {name}, var type in var_list = int, while var "
                                f"in data_generator contains non-int value, which is {values} \n"
                                "Please check if order of var_list and data_generator are aligned. \n"
                                "Please check if var's type in data_generator is correct.")

    # ---- reading ----
    def _read_file(self, path):
        """The records of one file, through the pipe command."""
        if path.startswith(("hdfs:", "afs:")):
            raise NotImplementedError(f"dataset: reading {path!r}: remote (HDFS/AFS) files are not supported by "
                                      "oar's datasets; download them first (fleet.utils.HDFSClient)")
        quoted = "'" + path.replace("'", "'\\''") + "'"
        p = subprocess.run(f"{self.proto_desc.pipe_command} < {quoted}", shell=True, stdout=subprocess.PIPE,
                           executable="/bin/bash")
        text = p.stdout.decode(errors="replace")
        parse_ins_id = getattr(self, "parse_ins_id", False)
        parse_content = getattr(self, "parse_content", False)
        return [_parse_line(line, self.proto_desc.slots, parse_ins_id, parse_content) for line in text.splitlines()]

    def _read_all(self):
        if not self.proto_desc.slots:
            raise RuntimeError(f"(PreconditionNotMet) Multi_slot_desc has not been set in {self.proto_desc.name}: "
                               "give the dataset its slot variables (init(use_var=[...]))")
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, self.thread_num)) as pool:
            parts = list(pool.map(self._read_file, list(self.filelist)))
        return [r for part in parts for r in part]


class InMemoryDataset(DatasetBase):
    """A dataset read into memory before training, where it can be shuffled (locally or across
    the job's workers) and counted.

    Examples:
        >>> import os, tempfile
        >>> import oar
        >>> d = tempfile.mkdtemp()
        >>> with open(os.path.join(d, "part-0"), "w") as f:
        ...     _ = f.write("2 3 4 1 1\\n1 5 1 0\\n")
        >>> oar.enable_static()
        >>> ids = oar.static.data(name="ids", shape=[-1, 1], dtype="int64")
        >>> label = oar.static.data(name="label", shape=[-1, 1], dtype="int64")
        >>> oar.disable_static()
        >>> ds = oar.distributed.InMemoryDataset()
        >>> ds.init(batch_size=2, thread_num=1, pipe_command="cat", use_var=[ids, label])
        >>> ds.set_filelist([os.path.join(d, "part-0")])
        >>> ds.load_into_memory()
        >>> ds.local_shuffle()
        >>> print(ds.get_memory_data_size())
        2
    """

    def __init__(self):
        super().__init__()
        self.proto_desc.name = "MultiSlotInMemoryDataFeed"
        self.fleet_send_batch_size = None
        self.is_user_set_queue_num = False
        self.queue_num = None
        self.parse_ins_id = False
        self.parse_content = False
        self.parse_logkey = False
        self.merge_by_sid = True
        self.enable_pv_merge = False
        self.merge_by_lineid = False
        self.fleet_send_sleep_seconds = None
        self.fea_eval = False
        self._merge_size = None
        self._records = []
        self._shuffled_in = 0
        self._preload = None

    def _init_distributed_settings(self, **kwargs):
        merge_size = kwargs.get("merge_size", -1)
        if merge_size > 0:
            self._set_merge_by_lineid(merge_size)
        self._set_parse_ins_id(kwargs.get("parse_ins_id", False))
        self._set_parse_content(kwargs.get("parse_content", False))
        if kwargs.get("fleet_send_batch_size", None):
            self._set_fleet_send_batch_size(kwargs["fleet_send_batch_size"])
        if kwargs.get("fleet_send_sleep_seconds", None):
            self._set_fleet_send_sleep_seconds(kwargs["fleet_send_sleep_seconds"])
        if kwargs.get("fea_eval", False):
            self._set_fea_eval(kwargs.get("candidate_size", 10000), True)

    def update_settings(self, **kwargs):
        """Changes settings given to init (pipe_command, batch_size, thread_num, use_var,
        input_type, fs_name with fs_ugi, download_cmd, merge_size, parse_ins_id, parse_content,
        fleet_send_batch_size, fleet_send_sleep_seconds, fea_eval with candidate_size).

        Examples:
            >>> import oar
            >>> ds = oar.distributed.InMemoryDataset()
            >>> ds.init(batch_size=1)
            >>> ds.update_settings(batch_size=4, thread_num=2)
            >>> print(ds.proto_desc.batch_size, ds.thread_num)
            4 2
        """
        for key in kwargs:
            v = kwargs[key]
            if key == "pipe_command":
                self._set_pipe_command(v)
            elif key == "batch_size":
                self._set_batch_size(v)
            elif key == "thread_num":
                self._set_thread(v)
            elif key == "use_var":
                self._set_use_var(v)
            elif key == "input_type":
                self._set_input_type(v)
            elif key == "fs_name" and "fs_ugi" in kwargs:
                self._set_hdfs_config(v, kwargs["fs_ugi"])
            elif key == "download_cmd":
                self._set_download_cmd(v)
            elif key == "merge_size" and kwargs.get("merge_size", -1) > 0:
                self._set_merge_by_lineid(v)
            elif key == "parse_ins_id":
                self._set_parse_ins_id(v)
            elif key == "parse_content":
                self._set_parse_content(v)
            elif key == "fleet_send_batch_size":
                self._set_fleet_send_batch_size(v)
            elif key == "fleet_send_sleep_seconds":
                self._set_fleet_send_sleep_seconds(v)
            elif key == "fea_eval" and v:
                self._set_fea_eval(kwargs.get("candidate_size", 10000), True)

    def init(self, **kwargs):
        """Sets the dataset up (the settings of DatasetBase.init, plus queue_num and the
        distributed settings of update_settings).

        Examples:
            >>> import oar
            >>> ds = oar.distributed.InMemoryDataset()
            >>> ds.init(batch_size=8, thread_num=2, pipe_command="cat")
            >>> print(ds.proto_desc.name, ds.proto_desc.batch_size)
            MultiSlotInMemoryDataFeed 8
        """
        self.proto_desc.name = "MultiSlotInMemoryDataFeed"
        super().init(batch_size=kwargs.get("batch_size", 1), thread_num=kwargs.get("thread_num", 1),
                     use_var=kwargs.get("use_var", []), pipe_command=kwargs.get("pipe_command", "cat"),
                     input_type=kwargs.get("input_type", 0), fs_name=kwargs.get("fs_name", ""),
                     fs_ugi=kwargs.get("fs_ugi", ""), download_cmd=kwargs.get("download_cmd", "cat"))
        if kwargs.get("queue_num", -1) > 0:
            self._set_queue_num(kwargs["queue_num"])

    def _prepare_to_run(self):
        if self.thread_num <= 0:
            self.thread_num = 1
        if self.queue_num is None:
            self.queue_num = self.thread_num

    def _set_queue_num(self, queue_num):
        self.is_user_set_queue_num = True
        self.queue_num = queue_num

    def _set_parse_ins_id(self, parse_ins_id):
        self.parse_ins_id = parse_ins_id

    def _set_parse_content(self, parse_content):
        self.parse_content = parse_content

    def _set_fleet_send_batch_size(self, fleet_send_batch_size=1024):
        self.fleet_send_batch_size = fleet_send_batch_size

    def _set_fleet_send_sleep_seconds(self, fleet_send_sleep_seconds=0):
        self.fleet_send_sleep_seconds = fleet_send_sleep_seconds

    def _set_merge_by_lineid(self, merge_size=2):
        self._merge_size = merge_size
        self.merge_by_lineid = True
        self.parse_ins_id = True

    def _set_fea_eval(self, record_candidate_size, fea_eval=True):
        self.fea_eval = fea_eval

    def set_date(self, date):
        """The date (YYYYMMDD) of the pass, for a GPU parameter server (which oar has not: the
        date is only checked).

        Examples:
            >>> import oar
            >>> oar.distributed.InMemoryDataset().set_date("20211111")
        """
        int(date[:4]), int(date[4:6]), int(date[6:])

    def tdm_sample(self, tree_name, tree_path, tdm_layer_counts, start_sample_layer, with_hierarchy, seed, id_slot):
        """Tree-based deep model sampling (needs Paddle's TDM tree; not implemented in oar).

        Examples:
            >>> import oar
            >>> try:
            ...     oar.distributed.InMemoryDataset().tdm_sample("t", "p", [1], 0, False, 0, 0)
            ... except NotImplementedError:
            ...     print("not implemented")
            not implemented
        """
        raise NotImplementedError("InMemoryDataset.tdm_sample: tree-based deep model sampling is not implemented "
                                  "in oar")

    def load_into_memory(self, is_shuffle=False):
        """Reads every file of the file list into memory.

        Examples:
            >>> import oar
            >>> ds = oar.distributed.InMemoryDataset()
            >>> ds.init(batch_size=1)
            >>> try:
            ...     ds.load_into_memory()
            ... except RuntimeError as e:
            ...     print("Multi_slot_desc" in str(e))
            True
        """
        self._prepare_to_run()
        self._records.extend(self._read_all())

    def preload_into_memory(self, thread_num=None):
        """Starts loading the files in the background (wait_preload_done waits for it).

        Examples:
            >>> import oar
            >>> ds = oar.distributed.InMemoryDataset()
            >>> ds.init(batch_size=1)
            >>> ds.preload_into_memory()
            >>> try:
            ...     ds.wait_preload_done()
            ... except RuntimeError:
            ...     print("no slots")
            no slots
        """
        self._prepare_to_run()
        result = {}

        def run():
            try:
                result["records"] = self._read_all()
            except BaseException as e:  # noqa: BLE001  (raised again by wait_preload_done)
                result["error"] = e
        t = threading.Thread(target=run, daemon=True)
        t.start()
        self._preload = (t, result)

    def wait_preload_done(self):
        """Waits for preload_into_memory; its errors are raised here.

        Examples:
            >>> import oar
            >>> oar.distributed.InMemoryDataset().wait_preload_done()
        """
        if self._preload is None:
            return
        t, result = self._preload
        t.join()
        self._preload = None
        if "error" in result:
            raise result["error"]
        self._records.extend(result["records"])

    def local_shuffle(self):
        """Shuffles the records in memory (with Python's random generator).

        Examples:
            >>> import oar
            >>> ds = oar.distributed.InMemoryDataset()
            >>> ds.local_shuffle()
            >>> print(ds.get_memory_data_size())
            0
        """
        random.shuffle(self._records)

    def global_shuffle(self, fleet=None, thread_num=12):
        """Shuffles the records across the job's workers (each record goes to a random worker,
        then each worker shuffles what it holds); without `fleet` (or with one worker) the
        shuffle is local. With ``merge_size`` set, the records of each ins_id are merged
        afterwards.

        Args:
            fleet (Fleet, optional): Default: None.
            thread_num (int, optional): Default: 12.

        Examples:
            >>> import oar
            >>> ds = oar.distributed.InMemoryDataset()
            >>> ds.global_shuffle()
            >>> print(ds.get_shuffle_data_size())
            0
        """
        from .. import collective
        if self.fleet_send_batch_size is None:
            self.fleet_send_batch_size = 1024
        if self.fleet_send_sleep_seconds is None:
            self.fleet_send_sleep_seconds = 0
        workers = fleet.worker_num() if fleet is not None else 1
        if workers > 1:
            collective.barrier()
            me = collective.get_rank()
            outgoing = [[] for _ in range(workers)]
            for r in self._records:
                outgoing[random.randrange(workers)].append(r)
            gathered = []
            collective.all_gather_object(gathered, outgoing)
            received = [r for shares in gathered for r in shares[me]]
            self._records = received
            collective.barrier()
        random.shuffle(self._records)
        self._shuffled_in = len(self._records)
        if self.merge_by_lineid:
            self._merge_by_ins_id()

    def _merge_by_ins_id(self):
        """Merges the records of each ins_id (groups of merge_size): slot values concatenated."""
        groups = {}
        order = []
        for r in self._records:
            if r[0] not in groups:
                groups[r[0]] = []
                order.append(r[0])
            groups[r[0]].append(r)
        merged = []
        for key in order:
            rs = groups[key]
            if len(rs) != self._merge_size:
                continue   # Paddle drops instances whose ins_id does not come merge_size times
            values = [np.concatenate([r[2][i] for r in rs]) for i in range(len(rs[0][2]))]
            merged.append((key, rs[0][1], values))
        self._records = merged

    def release_memory(self):
        """Drops the records in memory.

        Examples:
            >>> import oar
            >>> ds = oar.distributed.InMemoryDataset()
            >>> ds.release_memory()
            >>> print(ds.get_memory_data_size())
            0
        """
        self._records = []
        self._shuffled_in = 0

    def _size(self, n, fleet):
        local = np.array([n])
        if fleet is not None:
            from .. import collective
            if collective.is_initialized() and collective.get_world_size() > 1:
                sizes = []
                collective.all_gather_object(sizes, int(n))
                return np.array([sum(sizes)])[0]
        return local[0]

    def get_memory_data_size(self, fleet=None):
        """The number of records in memory (of all workers with `fleet`).

        Examples:
            >>> import oar
            >>> print(oar.distributed.InMemoryDataset().get_memory_data_size())
            0
        """
        return self._size(len(self._records), fleet)

    def get_shuffle_data_size(self, fleet=None):
        """The number of records the last global shuffle left here (of all workers with `fleet`).

        Examples:
            >>> import oar
            >>> print(oar.distributed.InMemoryDataset().get_shuffle_data_size())
            0
        """
        return self._size(self._shuffled_in, fleet)

    def slots_shuffle(self, slots):
        """For feature evaluation (fea_eval=True): the values of the given slots are
        shuffled among the records, the other slots stay. Without fea_eval nothing changes (as
        Paddle).

        Examples:
            >>> import oar
            >>> ds = oar.distributed.InMemoryDataset()
            >>> ds.update_settings(fea_eval=True)
            >>> ds.slots_shuffle(["ids"])
        """
        if not self.fea_eval:
            return
        names = [s.name for s in self.proto_desc.slots]
        idx = [names.index(s) for s in set(slots) if s in names]
        if not idx or not self._records:
            return
        perm = list(range(len(self._records)))
        random.shuffle(perm)
        recs = self._records
        self._records = [(r[0], r[1], [recs[perm[k]][2][i] if i in idx else v for i, v in enumerate(r[2])])
                         for k, r in enumerate(recs)]


class QueueDataset(DatasetBase):
    """A dataset streamed from its files while a static program trains (Paddle's
    Executor.train_from_dataset); it has no in-memory operations.

    Examples:
        >>> import oar
        >>> ds = oar.distributed.QueueDataset()
        >>> ds.init(batch_size=2, thread_num=1, pipe_command="cat")
        >>> ds.set_filelist(["a.txt"])
        >>> print(ds.proto_desc.name)
        MultiSlotDataFeed
    """

    def __init__(self):
        super().__init__()
        self.proto_desc.name = "MultiSlotDataFeed"

    def init(self, **kwargs):
        """Sets the dataset up (see DatasetBase.init).

        Examples:
            >>> import oar
            >>> ds = oar.distributed.QueueDataset()
            >>> ds.init(batch_size=3)
            >>> print(ds.proto_desc.batch_size)
            3
        """
        super().init(**kwargs)
