"""File-system clients of fleet (paddle.distributed.fleet.utils.fs): LocalFS over the local file
system, HDFSClient over a Hadoop installation's ``bin/hadoop fs`` command, and their errors."""
import functools
import multiprocessing
import os
import re
import shutil
import subprocess
import time

__all__ = []


class ExecuteError(Exception):
    """A file-system command failed (HDFSClient retries it until its time_out)."""


class FSFileExistsError(Exception):
    """The target path exists already."""


class FSFileNotExistsError(Exception):
    """The source path does not exist."""


class FSTimeOut(Exception):
    """A command kept failing for longer than the client's time_out."""


class FSShellCmdAborted(ExecuteError):
    """The shell command was aborted (exit status 134)."""


class FS:
    """The interface of fleet's file-system clients."""

    def ls_dir(self, fs_path):
        raise NotImplementedError

    def is_file(self, fs_path):
        raise NotImplementedError

    def is_dir(self, fs_path):
        raise NotImplementedError

    def is_exist(self, fs_path):
        raise NotImplementedError

    def upload(self, local_path, fs_path):
        raise NotImplementedError

    def download(self, fs_path, local_path):
        raise NotImplementedError

    def mkdirs(self, fs_path):
        raise NotImplementedError

    def delete(self, fs_path):
        raise NotImplementedError

    def need_upload_download(self):
        raise NotImplementedError

    def rename(self, fs_src_path, fs_dst_path):
        raise NotImplementedError

    def mv(self, fs_src_path, fs_dst_path, overwrite=False, test_exists=False):
        raise NotImplementedError

    def upload_dir(self, local_dir, dest_dir):
        raise NotImplementedError

    def list_dirs(self, fs_path):
        raise NotImplementedError

    def touch(self, fs_path, exist_ok=True):
        raise NotImplementedError

    def cat(self, fs_path=None):
        raise NotImplementedError


class LocalFS(FS):
    """A client of the local file system with the interface of fleet's HDFSClient, so that code
    written for one runs with the other. As Paddle's, it has no upload/download/cat/upload_dir
    (NotImplementedError): a local path needs no transfer (``need_upload_download()`` is False).

    Examples:
        >>> import os, tempfile
        >>> from oar.distributed.fleet.utils import LocalFS
        >>> client = LocalFS()
        >>> root = tempfile.mkdtemp()
        >>> client.mkdirs(os.path.join(root, "sub"))
        >>> client.touch(os.path.join(root, "a.txt"))
        >>> print(client.ls_dir(root))
        (['sub'], ['a.txt'])
        >>> client.delete(root)
        >>> print(client.is_exist(root))
        False
    """

    def ls_dir(self, fs_path):
        """(sub-directory names, file names) directly under fs_path; ([], []) if it does not exist.

        Examples:
            >>> from oar.distributed.fleet.utils import LocalFS
            >>> print(LocalFS().ls_dir("/no/such/dir"))
            ([], [])
        """
        if not self.is_exist(fs_path):
            return [], []
        dirs, files = [], []
        for f in os.listdir(fs_path):
            (dirs if os.path.isdir(fs_path + "/" + f) else files).append(f)
        return dirs, files

    def mkdirs(self, fs_path):
        """Creates fs_path and its missing parents (AssertionError if it is a file).

        Examples:
            >>> import os, tempfile
            >>> from oar.distributed.fleet.utils import LocalFS
            >>> d = os.path.join(tempfile.mkdtemp(), "a", "b")
            >>> LocalFS().mkdirs(d)
            >>> print(os.path.isdir(d))
            True
        """
        assert not os.path.isfile(fs_path), f"{fs_path} is already a file"
        os.makedirs(fs_path, exist_ok=True)

    def rename(self, fs_src_path, fs_dst_path):
        """Renames a path (os.rename's errors).

        Examples:
            >>> import os, tempfile
            >>> from oar.distributed.fleet.utils import LocalFS
            >>> d = tempfile.mkdtemp()
            >>> LocalFS().touch(d + "/a")
            >>> LocalFS().rename(d + "/a", d + "/b")
            >>> print(os.listdir(d))
            ['b']
        """
        os.rename(fs_src_path, fs_dst_path)

    def _rmr(self, fs_path):
        shutil.rmtree(fs_path)

    def _rm(self, fs_path):
        os.remove(fs_path)

    def delete(self, fs_path):
        """Removes a file or a directory tree; nothing if fs_path does not exist.

        Examples:
            >>> import tempfile
            >>> from oar.distributed.fleet.utils import LocalFS
            >>> d = tempfile.mkdtemp()
            >>> LocalFS().delete(d)
            >>> print(LocalFS().is_exist(d))
            False
        """
        if not self.is_exist(fs_path):
            return None
        if os.path.isfile(fs_path):
            return self._rm(fs_path)
        return self._rmr(fs_path)

    def need_upload_download(self):
        """False: local paths are used in place.

        Examples:
            >>> from oar.distributed.fleet.utils import LocalFS
            >>> print(LocalFS().need_upload_download())
            False
        """
        return False

    def is_file(self, fs_path):
        """Whether fs_path is a file.

        Examples:
            >>> import tempfile
            >>> from oar.distributed.fleet.utils import LocalFS
            >>> print(LocalFS().is_file(tempfile.mkdtemp()))
            False
        """
        return os.path.isfile(fs_path)

    def is_dir(self, fs_path):
        """Whether fs_path is a directory.

        Examples:
            >>> import tempfile
            >>> from oar.distributed.fleet.utils import LocalFS
            >>> print(LocalFS().is_dir(tempfile.mkdtemp()))
            True
        """
        return os.path.isdir(fs_path)

    def is_exist(self, fs_path):
        """Whether fs_path exists.

        Examples:
            >>> from oar.distributed.fleet.utils import LocalFS
            >>> print(LocalFS().is_exist("/no/such/path"))
            False
        """
        return os.path.exists(fs_path)

    def touch(self, fs_path, exist_ok=True):
        """Creates an empty file; an existing path is left as it is with exist_ok, else
        FSFileExistsError.

        Examples:
            >>> import tempfile
            >>> from oar.distributed.fleet.utils import LocalFS
            >>> f = tempfile.mkdtemp() + "/x"
            >>> LocalFS().touch(f)
            >>> print(LocalFS().is_file(f))
            True
        """
        if self.is_exist(fs_path):
            if exist_ok:
                return None
            raise FSFileExistsError
        with open(fs_path, "a"):
            pass

    def mv(self, src_path, dst_path, overwrite=False, test_exists=False):
        """Moves src_path to dst_path: FSFileNotExistsError if the source is missing,
        FSFileExistsError if the target exists (unless overwrite, which deletes it first).

        Examples:
            >>> import os, tempfile
            >>> from oar.distributed.fleet.utils import LocalFS
            >>> d = tempfile.mkdtemp()
            >>> LocalFS().touch(d + "/a")
            >>> LocalFS().mv(d + "/a", d + "/b")
            >>> print(os.listdir(d))
            ['b']
        """
        if not self.is_exist(src_path):
            raise FSFileNotExistsError
        if overwrite and self.is_exist(dst_path):
            self.delete(dst_path)
        if self.is_exist(dst_path):
            raise FSFileExistsError
        return self.rename(src_path, dst_path)

    def list_dirs(self, fs_path):
        """The sub-directory names directly under fs_path ([] if it does not exist).

        Examples:
            >>> import tempfile
            >>> from oar.distributed.fleet.utils import LocalFS
            >>> d = tempfile.mkdtemp()
            >>> LocalFS().mkdirs(d + "/s")
            >>> print(LocalFS().list_dirs(d))
            ['s']
        """
        if not self.is_exist(fs_path):
            return []
        return [f for f in os.listdir(fs_path) if os.path.isdir(fs_path + "/" + f)]


def _handle_errors(max_time_out=None):
    """Retries a command that raised ExecuteError every sleep_inter ms, until time_out ms have
    passed (then FSTimeOut)."""
    def decorator(f):
        @functools.wraps(f)
        def handler(*args, **kwargs):
            o = args[0]
            time_out = (float(o._time_out) if max_time_out is None else float(max_time_out)) / 1000.0
            inter = float(o._sleep_inter) / 1000.0
            start = time.time()
            last_print = start
            while True:
                try:
                    return f(*args, **kwargs)
                except ExecuteError:
                    if time.time() - start >= time_out:
                        raise FSTimeOut(f"args:{args} timeout:{time.time() - start}")
                    time.sleep(inter)
                if time.time() - last_print > 30:
                    print(f"hadoop operator timeout:args:{args} timeout:{time.time() - start}")
                    last_print = time.time()
        return handler
    return decorator


class HDFSClient(FS):
    """A client of HDFS through a Hadoop installation: each operation runs
    ``<hadoop_home>/bin/hadoop fs -D<key>=<value>... -<command>`` in a shell. A failing command is
    retried (every `sleep_inter` ms) until `time_out` ms have passed, then FSTimeOut; a query
    (is_exist, is_dir, ...) that fails answers False. Without a hadoop binary every command fails
    (exit status 127): queries answer False after their retry and changes end in FSTimeOut.

    Args:
        hadoop_home (str): The Hadoop installation (``bin/hadoop`` under it).
        configs (dict): ``-D`` options, e.g. {"fs.default.name": ..., "hadoop.job.ugi": ...}.
        time_out (int, optional): Milliseconds. Default: 300000.
        sleep_inter (int, optional): Milliseconds between retries. Default: 1000.

    Examples:
        >>> from oar.distributed.fleet.utils import HDFSClient
        >>> client = HDFSClient("/usr/local/hadoop", {"fs.default.name": "hdfs://x:9000"})
        >>> print(client._base_cmd)
        /usr/local/hadoop/bin/hadoop fs -Dfs.default.name=hdfs://x:9000
        >>> print(client.need_upload_download())
        True
    """

    _retry_sleep_second = 3   # between the attempts of one command, as Paddle

    def __init__(self, hadoop_home, configs, time_out=5 * 60 * 1000, sleep_inter=1000):
        self.pre_commands = [f"{hadoop_home}/bin/hadoop", "fs"]
        if configs:
            for k, v in configs.items():
                self.pre_commands.append(f"-D{k}={v}")
        self._time_out = time_out
        self._sleep_inter = sleep_inter
        self._base_cmd = " ".join(self.pre_commands)
        self._bd_err_re = re.compile(r"\s?responseErrorMsg\s?\:.*, errorCode\:\s?[0-9]+, path\:")

    def _run_cmd(self, cmd, redirect_stderr=False, retry_times=5):
        exe_cmd = f"{self._base_cmd} -{cmd}"
        ret, output = 0, ""
        for _ in range(retry_times + 1):
            p = subprocess.run(exe_cmd, shell=True, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT if redirect_stderr else subprocess.DEVNULL)
            ret, output = p.returncode, p.stdout.decode(errors="replace")
            if ret == 0:
                break
            time.sleep(self._retry_sleep_second)
        if ret == 134:
            raise FSShellCmdAborted(cmd)
        return ret, output.splitlines()

    @_handle_errors()
    def list_dirs(self, fs_path):
        """Sub-directory names under fs_path ([] if it does not exist)."""
        if not self.is_exist(fs_path):
            return []
        return self._ls_dir(fs_path)[0]

    @_handle_errors()
    def ls_dir(self, fs_path):
        """(sub-directory names, file names) under fs_path (([], []) if it does not exist)."""
        if not self.is_exist(fs_path):
            return [], []
        return self._ls_dir(fs_path)

    def _ls_dir(self, fs_path):
        cmd = f"ls {fs_path}"
        ret, lines = self._run_cmd(cmd)
        if ret != 0:
            raise ExecuteError(cmd)
        dirs, files = [], []
        for line in lines:
            arr = line.split()
            if len(arr) != 8:
                continue
            (dirs if arr[0][0] == "d" else files).append(os.path.basename(arr[7]))
        return dirs, files

    def _test_match(self, lines):
        for line in lines:
            m = self._bd_err_re.match(line)
            if m is not None:
                return m
        return None

    @_handle_errors()
    def is_dir(self, fs_path):
        """Whether fs_path is a directory."""
        if not self.is_exist(fs_path):
            return False
        return self._is_dir(fs_path)

    def _is_dir(self, fs_path):
        cmd = f"test -d {fs_path}"
        ret, lines = self._run_cmd(cmd, redirect_stderr=True, retry_times=1)
        if ret:
            if self._test_match(lines):
                print("raise exception: ")
                print("\n".join(lines))
                raise ExecuteError(cmd)
            return False
        return True

    def is_file(self, fs_path):
        """Whether fs_path is a file."""
        if not self.is_exist(fs_path):
            return False
        return not self._is_dir(fs_path)

    @_handle_errors()
    def is_exist(self, fs_path):
        """Whether fs_path exists (False when the command fails)."""
        ret, _ = self._run_cmd(f"test -e {fs_path} ", redirect_stderr=True, retry_times=1)
        return ret == 0

    def upload_dir(self, local_dir, dest_dir, overwrite=False):
        """Puts local_dir under dest_dir (replacing it with overwrite)."""
        local_dir = local_dir.rstrip("/")
        dest_dir = dest_dir.rstrip("/")
        base = os.path.basename(local_dir)
        if self.is_exist(dest_dir + "/" + base) and overwrite:
            self.delete(dest_dir + "/" + base)
        if not self.is_exist(dest_dir):
            self.mkdirs(dest_dir)
        self._try_upload(local_dir, dest_dir)

    def upload(self, local_path, fs_path, multi_processes=5, overwrite=False):
        """Puts a local file, or the entries of a local directory, to fs_path, split over
        `multi_processes` processes (FSFileNotExistsError if local_path does not exist)."""
        local = LocalFS()
        if not local.is_exist(local_path):
            raise FSFileNotExistsError(f"{local_path} not exists")
        if os.path.isdir(local_path):
            files = [os.path.join(local_path, f) for f in os.listdir(local_path)]
        else:
            files = [local_path]
        if not files:
            print("there are nothing need to upload, function exit")
            return
        if self.is_exist(fs_path) and overwrite:
            self.delete(fs_path)
            self.mkdirs(fs_path)
        self._in_processes(multi_processes, files, lambda f: self._try_upload(f, fs_path))

    def _in_processes(self, n, files, do):
        procs = []
        ctx = multiprocessing.get_context("fork")
        for i in range(n):
            part = self._split_files(files, i, n)
            p = ctx.Process(target=lambda part=part: [do(f) for f in part])
            procs.append(p)
            p.start()
        for p in procs:
            p.join()

    @_handle_errors()
    def _try_upload(self, local_path, fs_path):
        cmd = f"put {local_path} {fs_path}"
        try:
            ret, _ = self._run_cmd(cmd)
            if ret != 0:
                raise ExecuteError(cmd)
        except Exception:
            self.delete(fs_path)
            raise

    def download(self, fs_path, local_path, multi_processes=5, overwrite=False):
        """Gets a file, or a directory's entries, to local_path (FSFileNotExistsError if fs_path
        does not exist)."""
        if not self.is_exist(fs_path):
            raise FSFileNotExistsError(f"{fs_path} not exits")
        if self.is_file(fs_path):
            return self._try_download(fs_path, local_path)
        dirs, names = self.ls_dir(fs_path)
        files = [fs_path + "/" + i for i in names] + [fs_path + "/" + i for i in dirs]
        self._in_processes(multi_processes, files, lambda f: self._try_download(f, local_path))
        return None

    @_handle_errors()
    def _try_download(self, fs_path, local_path):
        cmd = f"get {fs_path} {local_path}"
        try:
            ret, _ = self._run_cmd(cmd)
            if ret != 0:
                raise ExecuteError(cmd)
        except Exception:
            LocalFS().delete(local_path)
            raise

    @_handle_errors()
    def mkdirs(self, fs_path):
        """Creates fs_path (and its parents)."""
        if self.is_exist(fs_path):
            return
        cmd = f"mkdir {fs_path} "
        ret, out = self._run_cmd(cmd, redirect_stderr=True)
        out_hdfs = False
        if ret != 0:
            out_hdfs = any("No such file or directory" in line for line in out)
            if not out_hdfs:
                raise ExecuteError(cmd)
        if out_hdfs and not self.is_exist(fs_path):
            cmd = f"mkdir -p {fs_path}"
            ret, _ = self._run_cmd(cmd)
            if ret != 0:
                raise ExecuteError(cmd)

    def mv(self, fs_src_path, fs_dst_path, overwrite=False, test_exists=True):
        """Moves a path (FSFileNotExistsError / FSFileExistsError with test_exists)."""
        if overwrite and self.is_exist(fs_dst_path):
            self.delete(fs_dst_path)
        if test_exists:
            if not self.is_exist(fs_src_path):
                raise FSFileNotExistsError(f"{fs_src_path} is not exists")
            if self.is_exist(fs_dst_path):
                raise FSFileExistsError(f"{fs_dst_path} exists already")
        return self._try_mv(fs_src_path, fs_dst_path)

    @_handle_errors()
    def _try_mv(self, fs_src_path, fs_dst_path):
        cmd = f"mv {fs_src_path} {fs_dst_path}"
        try:
            ret, _ = self._run_cmd(cmd, retry_times=1)
            if ret != 0:
                raise ExecuteError(cmd)
        except Exception:
            if not self.is_exist(fs_src_path) and self.is_exist(fs_dst_path):
                return
            raise

    def _rmr(self, fs_path):
        cmd = f"rmr {fs_path}"
        ret, _ = self._run_cmd(cmd)
        if ret != 0:
            raise ExecuteError(cmd)

    def _rm(self, fs_path):
        cmd = f"rm {fs_path}"
        ret, _ = self._run_cmd(cmd)
        if ret != 0:
            raise ExecuteError(cmd)

    @_handle_errors()
    def delete(self, fs_path):
        """Removes a file or a directory tree (nothing if it does not exist)."""
        if not self.is_exist(fs_path):
            return None
        if self._is_dir(fs_path):
            return self._rmr(fs_path)
        return self._rm(fs_path)

    def touch(self, fs_path, exist_ok=True):
        """Creates an empty file (FSFileExistsError if it exists and not exist_ok)."""
        if self.is_exist(fs_path):
            if exist_ok:
                return None
            raise FSFileExistsError
        return self._touchz(fs_path)

    @_handle_errors()
    def _touchz(self, fs_path):
        cmd = f"touchz {fs_path}"
        ret, _ = self._run_cmd(cmd)
        if ret != 0:
            raise ExecuteError(cmd)

    def need_upload_download(self):
        """True: HDFS paths are transferred with upload/download."""
        return True

    def cat(self, fs_path=None):
        """The text of a file ("" if fs_path is not a file)."""
        if self.is_file(fs_path):
            return "\n".join(self._try_cat(fs_path))
        return ""

    @_handle_errors()
    def _try_cat(self, fs_path):
        cmd = f"cat {fs_path}"
        ret, output = self._run_cmd(cmd, retry_times=1)
        if ret != 0:
            raise ExecuteError(cmd)
        return output

    def _split_files(self, files, trainer_id, trainers):
        blocks = [len(files) // trainers] * trainers
        for i in range(len(files) % trainers):
            blocks[i] += 1
        begin = sum(blocks[:trainer_id])
        return files[begin:begin + blocks[trainer_id]]

    def list_files_info(self, path_list):
        """[{'path', 'size'}] of the given paths (through ``ls``)."""
        if len(path_list) <= 0:
            return []
        cmd = "ls " + "".join(p + " " for p in path_list) + " | awk '{if ($8 != \"\") {print $5\" \"$8 }}'"
        _, lines = self._run_cmd(cmd)
        out = []
        for line in lines:
            arr = line.split(" ")
            if len(arr) < 2:
                continue
            out.append({"path": arr[1], "size": int(arr[0])})
        return out
