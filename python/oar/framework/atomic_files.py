"""Crash-safe file replacement, for oar.save, Model.save, jit.save and save_inference_model.

A file is written to a hidden temporary beside its target, fsynced, then renamed onto the
target: a reader sees the old file or the new one, never a part of one. Files that belong
together (Model.save's .pdparams and .pdopt, jit.save's .pdiparams and .pdmodel) are all
written and fsynced before the first rename, so the only moment a kill can mix an old file
with a new one is between renames that follow each other directly (replace_all).

A temporary is named ``.<target name>.<host>.<pid>.<random>.tmp`` (<host>: 8 hex digits of a
hash of the host name): hidden, never ending in a model suffix, and saying whose it is. A
process killed in the middle of a save leaves its temporary behind; the next successful save of
the same target removes the temporaries whose writer ran on this host and no longer runs. A
live writer's temporary (another thread or process, or another host sharing the directory) is
never touched.
"""
import os
import re
import secrets
import shutil
import socket
import zlib


def _host_tag():
    """8 hex digits naming this host: pids are only comparable between writers on one host."""
    return f"{zlib.crc32(socket.gethostname().encode()):08x}"


def _temp_name(target):
    directory, base = os.path.split(target)
    return os.path.join(directory, f".{base}.{_host_tag()}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


def _create_beside(target, create):
    """create(name) on a new temporary name for target; the random part is drawn again in the
    unlikely case that the name exists."""
    while True:
        tmp = _temp_name(target)
        try:
            return tmp, create(tmp)
        except FileExistsError:
            continue


def open_temp_beside(target):
    """(name, fd): a new temporary file for target, with the umask's permissions (as open())."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    return _create_beside(target, lambda tmp: os.open(tmp, flags, 0o666))


def make_temp_dir_beside(target):
    """A new temporary directory for target, for writers that name their files themselves."""
    return _create_beside(target, lambda tmp: os.mkdir(tmp, 0o777))[0]


def fsync_dir(directory):
    """Makes the renames in directory durable (where the platform has directory handles)."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def replace_all(pairs):
    """Renames each (temporary, target) in order, back to back, then makes the renames durable.

    The temporaries must be complete and fsynced already, and the files being replaced are
    held open (_hold_open): then these renames, tens of microseconds, are the only window in
    which a kill leaves a group mixed. A kill there leaves the targets renamed before it new
    and the others old, each file whole. Closing that window too would take one rename of a
    directory holding the whole group, i.e. another file layout. A rename that fails leaves
    the same mix."""
    held = _hold_open([target for _, target in pairs])
    try:
        for tmp, target in pairs:
            os.replace(tmp, target)
    finally:
        for fd in held:
            os.close(fd)
    for directory in dict.fromkeys(os.path.dirname(target) for _, target in pairs):
        fsync_dir(directory)


def _hold_open(paths):
    """Descriptors of the existing files among paths. While one is open, the rename that
    replaces its file only edits the directory: freeing the old file's blocks (milliseconds for
    a large file, enough for a kill to land between two renames) waits for the close."""
    fds = []
    for path in paths:
        try:  # O_NONBLOCK: opening a FIFO must not wait for a writer
            fds.append(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)))
        except OSError:
            pass
    return fds


def _remove(path):
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass


def _writer_is_gone(pid):
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):  # PermissionError: it exists, as another user's
        return False
    return False


def remove_stale_temps(target):
    """Removes target's temporaries left by writers of this host that no longer run (killed in
    the middle of a save). Best effort: a save never fails because of them."""
    if os.name != "posix":  # os.kill(pid, 0) would end the process on Windows
        return
    directory, base = os.path.split(target)
    pattern = re.compile(rf"\.{re.escape(base)}\.(?P<host>[0-9a-f]{{8}})\.(?P<pid>\d{{1,10}})\.[0-9a-f]{{8}}\.tmp")
    host = _host_tag()
    try:
        entries = list(os.scandir(directory or "."))
    except OSError:
        return
    for entry in entries:
        m = pattern.fullmatch(entry.name)
        if m and m["host"] == host and _writer_is_gone(int(m["pid"])):
            _remove(entry.path)


def _file_target(path):
    path = os.path.realpath(path)  # write through a symlink, as open(path, 'wb') would
    if os.path.isdir(path):
        raise IsADirectoryError(21, "oar.save: the target path is a directory", path)
    return path


def write_files(items):
    """Writes files that belong together, each (path, write) by write(binary file).

    Every file goes to its own temporary and is fsynced; only when all are written are they
    renamed onto their paths (replace_all). A failure before the renames leaves the old files
    untouched and removes the temporaries."""
    targets = [_file_target(path) for path, _ in items]
    temps = []
    try:
        for target, (_, write) in zip(targets, items):
            tmp, fd = open_temp_beside(target)
            temps.append(tmp)
            with os.fdopen(fd, "wb") as f:
                write(f)
                f.flush()
                os.fsync(f.fileno())
        replace_all(list(zip(temps, targets)))
    except BaseException:
        for tmp in temps:
            _remove(tmp)
        raise
    for target in targets:
        remove_stale_temps(target)


def write_file(path, write):
    """Writes one file by write(binary file), crash-safely (write_files)."""
    write_files([(path, write)])


def write_prefixed_files(prefix, suffixes, write):
    """Files prefix + suffix that a writer names itself from a prefix (jit's C++ save_model
    writes <prefix>.pdiparams and <prefix>.pdmodel, each fsynced): write(temp prefix) writes
    them into a temporary directory beside prefix, then replace_all moves them onto their
    targets. A failure before the renames leaves the old files untouched."""
    for s in suffixes:  # found before writing: a failed rename could leave the group mixed
        if os.path.isdir(prefix + s):
            raise IsADirectoryError(21, "the target path is a directory", prefix + s)
    tmp_dir = make_temp_dir_beside(prefix)
    try:
        tmp_prefix = os.path.join(tmp_dir, os.path.basename(prefix))
        write(tmp_prefix)
        replace_all([(tmp_prefix + s, prefix + s) for s in suffixes])
    finally:
        _remove(tmp_dir)
    remove_stale_temps(prefix)
