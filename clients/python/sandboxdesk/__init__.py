"""The Python client of a sandboxdesk controller: named local sandboxes for
coding agents.

    from sandboxdesk import Sandboxes, GiB

    sandboxes = Sandboxes(prefix="ci")
    with sandboxes.create("w", memory=GiB(2), max_lifetime=3600) as box:
        result = box.exec(["make", "test"])
    sandboxes.remove("w")

It speaks the control protocol of sandboxdesk (docs/protocol.md in its
repository) over the socket in a root, and starts ``sandboxdesk serve`` for
the root when no controller answers, as the CLI does. Standard library only,
Python 3.9 or newer. Sizes are bytes (``MiB()``, ``GiB()``); durations are
seconds.
"""

import json
import math
import os
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Union

__all__ = [
    "PROTOCOL_VERSION", "MiB", "GiB", "default_root", "SandboxError", "Interrupted",
    "Sandboxes", "Sandbox", "ExecResult",
]

PROTOCOL_VERSION = 1

_MIB = 1 << 20
_MAX_FRAME = 1 << 20
_STDIN, _STDOUT, _STDERR, _EXIT, _STDIN_CLOSE, _SIGNAL, _ERROR = 0, 1, 2, 3, 4, 5, 6
_SIGINT = 2


def MiB(n: float) -> int:
    """n mebibytes, in bytes."""
    return int(n * _MIB)


def GiB(n: float) -> int:
    """n gibibytes, in bytes."""
    return int(n * 1024 * _MIB)


class SandboxError(Exception):
    """An error the controller reported. ``kind`` is one of "invalid",
    "notFound", "conflict", "unavailable", "exhausted", or None."""

    def __init__(self, message: str, kind: Optional[str] = None):
        super().__init__(message)
        self.kind = kind


class Interrupted(SandboxError):
    """A command stopped because its timeout ran out. ``exit_code`` is its
    status if it exited after SIGINT, None if it had to be killed."""

    def __init__(self, message: str, exit_code: Optional[int]):
        super().__init__(message, None)
        self.exit_code = exit_code


@dataclass
class ExecResult:
    """A command's exit status (128+N when killed by signal N) and the
    output that was not sent to a stream of the caller's."""

    exit_code: int
    stdout: bytes
    stderr: bytes


def default_root(env=os.environ, platform: str = sys.platform, home: Optional[str] = None) -> str:
    """The root a controller owns when none is named: $SANDBOXDESK_ROOT,
    else the per-user data folder the app and the CLI use."""
    if env.get("SANDBOXDESK_ROOT"):
        return os.path.abspath(env["SANDBOXDESK_ROOT"])
    home = home or os.path.expanduser("~")
    if platform == "win32":
        return os.path.join(env.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local"), "sandboxdesk")
    if platform == "darwin":
        return os.path.join(home, "Library", "Application Support", "sandboxdesk")
    xdg = env.get("XDG_DATA_HOME", "")
    return os.path.join(xdg if xdg.startswith("/") else os.path.join(home, ".local", "share"), "sandboxdesk")


def _ms(seconds: Optional[float]) -> Optional[int]:
    if seconds is None:
        return None
    return max(1, int(round(seconds * 1000)))


class _Conn:
    """One connection to the controller: request lines, reply lines, frames."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.buf = b""
        self.lock = threading.Lock()

    def send(self, data: bytes) -> None:
        with self.lock:
            self.sock.sendall(data)

    def frame(self, typ: int, payload: bytes = b"") -> None:
        self.send(struct.pack(">BI", typ, len(payload)) + payload)

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise SandboxError("the controller closed the connection", "unavailable")
        self.buf += chunk

    def read_line(self) -> bytes:
        while b"\n" not in self.buf:
            self._fill()
        line, _, self.buf = self.buf.partition(b"\n")
        return line

    def read_frame(self):
        while len(self.buf) < 5:
            self._fill()
        typ, n = struct.unpack(">BI", self.buf[:5])
        if n > _MAX_FRAME:
            raise SandboxError("a frame of %d bytes is over the limit" % n, "unavailable")
        while len(self.buf) < 5 + n:
            self._fill()
        payload, self.buf = self.buf[5:5 + n], self.buf[5 + n:]
        return typ, payload

    def close(self) -> None:
        self.sock.close()


def _events(conn: "_Conn") -> Iterator[Dict[str, Any]]:
    try:
        while True:
            try:
                line = conn.read_line()
            except (SandboxError, OSError):
                return
            yield json.loads(line)
    finally:
        conn.close()


def _unwrap(line: bytes) -> Any:
    rep = json.loads(line)
    if not rep.get("ok"):
        err = rep.get("error") or {"message": "the controller failed without saying why", "kind": "unavailable"}
        raise SandboxError(err.get("message", ""), err.get("kind") or None)
    return rep.get("body")


class Sandboxes:
    """The sandboxes of one root and prefix. Each call opens its own
    connection, so one instance may be used from several threads."""

    def __init__(self, root: Optional[str] = None, prefix: str = "", exe: Optional[str] = None,
                 notices: Optional[Callable[[str], None]] = None):
        self.root = os.path.abspath(root) if root else default_root()
        self.prefix = prefix
        self.exe = exe
        self._notices = notices or (lambda line: print(line, file=sys.stderr))
        self.socket_path = os.path.join(self.root, "control.sock")
        self._ready = False
        self._lock = threading.Lock()

    def __enter__(self) -> "Sandboxes":
        return self

    def __exit__(self, *exc) -> None:
        pass  # nothing is held between calls

    def hello(self) -> Dict[str, Any]:
        """The controller's protocol version, features and requests."""
        self._connect()
        return self._call("hello", {"client": "python"})

    def create(self, name: str, *, memory: Optional[int] = None, cpus: Optional[int] = None,
               disk: Optional[int] = None, image: str = "", backend: str = "",
               idle_timeout: Optional[float] = None, max_lifetime: Optional[float] = None,
               stop_grace: Optional[float] = None, network: str = "", replace: bool = False) -> "Sandbox":
        """The sandbox of that name when its shape still serves, started;
        otherwise a rebuilt one, keeping its workspace (or, with replace,
        not). Sizes in bytes, durations in seconds; network is "on"
        (outbound only, the default), "off" (none) or "host"."""
        body: Dict[str, Any] = {"name": name}
        if self.prefix:
            body["prefix"] = self.prefix
        if image:
            body["image"] = image
        if backend:
            body["backend"] = backend
        if memory is not None:
            body["memoryMiB"] = math.ceil(memory / _MIB)
        if cpus is not None:
            body["cpus"] = cpus
        if disk is not None:
            body["diskMiB"] = math.ceil(disk / _MIB)
        for field, seconds in (("idleTimeoutMs", idle_timeout), ("maxLifetimeMs", max_lifetime),
                               ("stopGraceMs", stop_grace)):
            if seconds is not None:
                body[field] = _ms(seconds)
        if network:
            body["network"] = network
        if replace:
            body["replace"] = True
        self._connect()
        return Sandbox(self, self._call("create", body))

    def get(self, name: str) -> "Sandbox":
        """The sandbox of that name as it is, without starting it."""
        self._connect()
        return Sandbox(self, self._call("inspect", self._ref(name)))

    def list(self) -> List[Dict[str, Any]]:
        """The sandboxes of this root and prefix."""
        self._connect()
        return self._call("list", {"prefix": self.prefix} if self.prefix else {})

    def remove(self, name: str) -> bool:
        """Removes a sandbox and its workspace; returns whether there was one."""
        self._connect()
        body: Dict[str, Any] = {"names": [name]}
        if self.prefix:
            body["prefix"] = self.prefix
        rep = self._call("remove", body)
        return name in (rep.get("removed") or [])

    def remove_all(self) -> List[str]:
        """Removes every sandbox of this root and prefix; returns their names."""
        self._connect()
        body: Dict[str, Any] = {"all": True}
        if self.prefix:
            body["prefix"] = self.prefix
        return self._call("remove", body).get("removed") or []

    def subscribe(self) -> Iterator[Dict[str, Any]]:
        """Subscribes to the controller's events: once this returns, no
        event is missed. Iterate the result for one dict per event; close
        it (or leave the loop and drop it) to unsubscribe."""
        self._connect()
        conn = self._dial()
        try:
            conn.send(json.dumps({"type": "subscribe"}).encode() + b"\n")
            _unwrap(conn.read_line())
        except BaseException:
            conn.close()
            raise
        return _events(conn)

    def _ref(self, name: str) -> Dict[str, Any]:
        ref: Dict[str, Any] = {"name": name}
        if self.prefix:
            ref["prefix"] = self.prefix
        return ref

    def _dial(self) -> _Conn:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        target, dir_fd = self.socket_path, -1
        # a unix socket address holds about 100 bytes; a deeper root is
        # reached through a handle on its folder (Linux)
        if len(target.encode()) > 100 and sys.platform.startswith("linux"):
            try:
                dir_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
                target = "/proc/self/fd/%d/control.sock" % dir_fd
            except OSError:
                pass
        try:
            sock.connect(target)
        except OSError as e:
            sock.close()
            raise SandboxError("no controller answers for %s: %s" % (self.root, e), "unavailable") from e
        finally:
            if dir_fd >= 0:
                os.close(dir_fd)
        return _Conn(sock)

    def _call(self, typ: str, body: Dict[str, Any]) -> Any:
        conn = self._dial()
        try:
            conn.send(json.dumps({"type": typ, "body": body}).encode() + b"\n")
            return _unwrap(conn.read_line())
        except OSError as e:
            raise SandboxError("%s: %s" % (typ, e), "unavailable") from e
        finally:
            conn.close()

    def _connect(self) -> None:
        """Makes sure a controller of a protocol we speak answers, starting
        one for the root when none does."""
        with self._lock:
            if self._ready:
                return
            try:
                hello = self._hello()
            except SandboxError as e:
                if e.kind != "unavailable":
                    raise
                self._start_controller()
                hello = self._hello()
            if hello.get("protocol") != PROTOCOL_VERSION:
                raise SandboxError("the controller for %s speaks protocol %s; this client speaks %d"
                                   % (self.root, hello.get("protocol"), PROTOCOL_VERSION), "unavailable")
            self._ready = True

    def _hello(self) -> Dict[str, Any]:
        try:
            return self._call("hello", {"client": "python"})
        except SandboxError as e:
            if e.kind == "invalid":  # a controller from before the handshake
                return {"protocol": 1, "features": [], "requests": []}
            raise

    def _start_controller(self) -> None:
        exe = self.exe or shutil.which("sandboxdesk")
        if not exe:
            raise SandboxError("no controller is running for %s and sandboxdesk is not on PATH to start one"
                               % self.root, "unavailable")
        os.makedirs(self.root, mode=0o700, exist_ok=True)
        log_path = os.path.join(self.root, "serve.log")
        detach: Dict[str, Any] = {"start_new_session": True}
        if sys.platform == "win32":
            detach = {"creationflags": 0x00000008}  # DETACHED_PROCESS
        with open(log_path, "ab") as log:
            child = subprocess.Popen([exe, "serve", "--root", self.root], stdin=subprocess.DEVNULL,
                                     stdout=log, stderr=log, cwd=os.path.abspath(os.sep), **detach)
        # reaped when it exits (it loses the root to another one, say)
        threading.Thread(target=child.wait, daemon=True).start()
        self._notices("sandboxdesk: no controller was running for %s; started one (pid %d, log %s)"
                      % (self.root, child.pid, log_path))
        # another client may have started one at the same moment: ours then
        # exits, and theirs answers soon after
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                self._call("status", {})
                return
            except SandboxError:
                time.sleep(0.05)
        raise SandboxError("the controller for %s did not start: %s" % (self.root, _last_line(log_path)),
                           "unavailable")


Input = Union[None, bytes, str, Any]
Output = Union[None, Callable[[bytes], Any], Any]


class Sandbox:
    """One sandbox, as its last create, stop or inspect saw it: its fields
    (``name``, ``id``, ``state``, ``created_at``...) are in ``info`` and as
    attributes. As a context manager it stops the sandbox on the way out,
    keeping it and its workspace for the next create."""

    def __init__(self, owner: Sandboxes, info: Dict[str, Any]):
        self._owner = owner
        self.info = info

    def __getattr__(self, attr: str) -> Any:
        # created_at reads createdAt, memory_mib memoryMiB
        info = self.__dict__.get("info") or {}
        want = attr.replace("_", "").lower()
        for key, value in info.items():
            if key.lower() == want:
                return value
        raise AttributeError(attr)

    def __repr__(self) -> str:
        return "Sandbox(name=%r, id=%r, state=%r)" % (self.info.get("name"), self.info.get("id"), self.info.get("state"))

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.stop()
        except SandboxError as e:
            if e.kind != "notFound":  # removed inside the block: nothing to stop
                raise

    def inspect(self) -> "Sandbox":
        """Fetches the sandbox as it is now."""
        self.info = self._owner._call("inspect", self._owner._ref(self.info["name"]))
        return self

    def stop(self) -> "Sandbox":
        """Stops it, keeping it and its workspace; the next create starts it."""
        self.info = self._owner._call("stop", self._owner._ref(self.info["name"]))
        return self

    def exec(self, args: Union[Sequence[str], str], *, stdin: Input = None, stdout: Output = None,
             stderr: Output = None, env: Optional[Dict[str, str]] = None, cwd: Optional[str] = None,
             timeout: Optional[float] = None, grace: float = 10.0) -> ExecResult:
        """Runs a command (an argument list, or a string for sh -c) and
        returns its exit status. stdin is bytes, text or a binary file;
        stdout and stderr take a binary file or a function of bytes, and
        what they do not take comes back in the result. Ctrl-C (or the
        timeout running out) sends the command SIGINT, and kills it if it
        is still running after grace seconds; KeyboardInterrupt (or
        Interrupted) is raised once it has ended."""
        if isinstance(args, str):
            args = ["sh", "-c", args]
        body = dict(self._owner._ref(self.info["name"]), args=list(args))
        if env:
            body["env"] = ["%s=%s" % kv for kv in env.items()]
        if cwd:
            body["dir"] = cwd
        conn = self._owner._dial()
        try:
            conn.send(json.dumps({"type": "exec", "body": body}).encode() + b"\n")
            return _Run(conn, self.info["name"], grace).wait(stdin, stdout, stderr, timeout)
        finally:
            conn.close()


class _Run:
    """One command's stream: input sent from a thread, output read here."""

    def __init__(self, conn: _Conn, name: str, grace: float):
        self.conn, self.name, self.grace = conn, name, grace
        self.killer: Optional[threading.Timer] = None
        self.interrupted = threading.Event()

    def interrupt(self) -> None:
        """Ctrl-C: SIGINT now, a kill (hanging up) after the grace."""
        if self.interrupted.is_set():
            self.kill()
            return
        self.interrupted.set()
        try:
            self.conn.frame(_SIGNAL, bytes([_SIGINT]))
        except OSError:
            pass
        self.killer = threading.Timer(self.grace, self.kill)
        self.killer.daemon = True
        self.killer.start()

    def kill(self) -> None:
        try:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def wait(self, stdin: Input, stdout: Output, stderr: Output, timeout: Optional[float]) -> ExecResult:
        feeder = threading.Thread(target=self._feed, args=(stdin,), daemon=True)
        feeder.start()
        timer = None
        if timeout is not None:
            timer = threading.Timer(timeout, self.interrupt)
            timer.daemon = True
            timer.start()
        collected = {_STDOUT: [], _STDERR: []}
        sinks = {_STDOUT: _sink(stdout, collected[_STDOUT]), _STDERR: _sink(stderr, collected[_STDERR])}
        keyboard: Optional[KeyboardInterrupt] = None
        code: Optional[int] = None
        try:
            while True:
                try:
                    typ, payload = self.conn.read_frame()
                    if typ in sinks:
                        sinks[typ](payload)
                    elif typ == _EXIT:
                        code = struct.unpack(">i", payload)[0]
                        break
                    elif typ == _ERROR:
                        raise SandboxError("exec in %s: %s" % (self.name, payload.decode("utf-8", "replace")))
                except KeyboardInterrupt as e:
                    keyboard = e
                    self.interrupt()
                except (SandboxError, OSError) as e:
                    if self.interrupted.is_set():
                        break  # killed after its grace
                    if isinstance(e, SandboxError) and e.kind is None:
                        raise
                    raise SandboxError("exec in %s: connection lost: %s" % (self.name, e), "unavailable") from e
        finally:
            for t in (timer, self.killer):
                if t:
                    t.cancel()
        if keyboard is not None:
            keyboard.exit_code = code  # type: ignore[attr-defined]
            raise keyboard
        if self.interrupted.is_set():
            raise Interrupted("exec in %s: interrupted after its timeout" % self.name, code)
        return ExecResult(code if code is not None else -1, b"".join(collected[_STDOUT]), b"".join(collected[_STDERR]))

    def _feed(self, stdin: Input) -> None:
        try:
            if isinstance(stdin, str):
                stdin = stdin.encode()
            if isinstance(stdin, (bytes, bytearray, memoryview)):
                data = bytes(stdin)
                for i in range(0, len(data), _MAX_FRAME):
                    self.conn.frame(_STDIN, data[i:i + _MAX_FRAME])
            elif stdin is not None:
                while True:
                    chunk = stdin.read(65536)
                    if not chunk:
                        break
                    self.conn.frame(_STDIN, chunk.encode() if isinstance(chunk, str) else chunk)
            self.conn.frame(_STDIN_CLOSE)
        except OSError:
            pass  # the command has ended, or the connection with it


def _sink(dst: Output, collected: list) -> Callable[[bytes], Any]:
    if dst is None:
        return collected.append
    if callable(dst):
        return dst
    target = getattr(dst, "buffer", dst)  # a text stream's bytes underneath
    return lambda b: (target.write(b), target.flush())


def _last_line(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().strip().splitlines()
        return lines[-1] if lines else "it exited without saying why"
    except OSError:
        return "it exited without saying why"
