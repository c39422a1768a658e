// The TypeScript/JavaScript client of a sandboxdesk controller. It speaks
// the control protocol (docs/protocol.md in the sandboxdesk repository)
// over the socket in a root, and starts `sandboxdesk serve` for the root
// when no controller answers, as the CLI does. No runtime dependencies.

import { spawn } from "node:child_process";
import { accessSync, closeSync, constants, mkdirSync, openSync, readFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** The protocol version this client speaks. */
export const PROTOCOL_VERSION = 1;

const MIB = 1024 * 1024;

/** n mebibytes, in bytes. */
export function MiB(n) {
  return n * MIB;
}

/** n gibibytes, in bytes. */
export function GiB(n) {
  return n * 1024 * MIB;
}

/** An error the controller reported, with its kind: "invalid", "notFound",
 * "conflict", "unavailable", "exhausted", or undefined. */
export class SandboxError extends Error {
  constructor(message, kind) {
    super(message);
    this.name = "SandboxError";
    this.kind = kind;
  }
}

// Frame types of the exec stream.
const F = { stdin: 0, stdout: 1, stderr: 2, exit: 3, stdinClose: 4, signal: 5, error: 6, resize: 7 };
const MAX_FRAME = 1 << 20;
const SIGINT = 2;

/** The root a controller owns when none is named: $SANDBOXDESK_ROOT, else
 * the per-user data folder the app and the CLI use. */
export function defaultRoot(env = process.env, platform = process.platform, home = os.homedir()) {
  if (env.SANDBOXDESK_ROOT) return path.resolve(env.SANDBOXDESK_ROOT);
  if (platform === "win32") {
    return path.join(env.LOCALAPPDATA || path.join(home, "AppData", "Local"), "sandboxdesk");
  }
  if (platform === "darwin") return path.join(home, "Library", "Application Support", "sandboxdesk");
  const xdg = env.XDG_DATA_HOME;
  return path.join(xdg && xdg.startsWith("/") ? xdg : path.join(home, ".local", "share"), "sandboxdesk");
}

/** The sandboxes of one root and prefix. */
export class Sandboxes {
  /**
   * @param {{root?: string, prefix?: string, exe?: string, notices?: (line: string) => void}} [options]
   */
  constructor(options = {}) {
    this.root = options.root ? path.resolve(options.root) : defaultRoot();
    this.prefix = options.prefix || "";
    this.exe = options.exe;
    this.notices = options.notices || ((line) => process.stderr.write(line + "\n"));
    this.socketPath = path.join(this.root, "control.sock");
    this._ready = null;
  }

  /** The controller's protocol version, features and requests. */
  async hello() {
    await this._connect();
    return this._call("hello", { client: "typescript" });
  }

  /**
   * Returns the sandbox of that name when its shape still serves, started;
   * otherwise rebuilds it, keeping its workspace (or, with replace, not).
   */
  async create(name, options = {}) {
    const body = { name, prefix: this.prefix || undefined };
    if (options.image) body.image = options.image;
    if (options.backend) body.backend = options.backend;
    if (options.memory != null) body.memoryMiB = Math.ceil(options.memory / MIB);
    if (options.cpus != null) body.cpus = options.cpus;
    if (options.disk != null) body.diskMiB = Math.ceil(options.disk / MIB);
    if (options.idleTimeoutMs != null) body.idleTimeoutMs = options.idleTimeoutMs;
    if (options.maxLifetimeMs != null) body.maxLifetimeMs = options.maxLifetimeMs;
    if (options.stopGraceMs != null) body.stopGraceMs = options.stopGraceMs;
    if (options.network) body.network = options.network;
    if (options.replace) body.replace = true;
    await this._connect();
    return new Sandbox(this, await this._call("create", body, options.signal));
  }

  /** The sandbox of that name as it is, without starting it. */
  async get(name) {
    await this._connect();
    return new Sandbox(this, await this._call("inspect", this._ref(name)));
  }

  /** The sandboxes of this root and prefix. */
  async list() {
    await this._connect();
    return this._call("list", { prefix: this.prefix || undefined });
  }

  /** Removes a sandbox and its workspace; returns whether there was one. */
  async remove(name) {
    await this._connect();
    const rep = await this._call("remove", { prefix: this.prefix || undefined, names: [name] });
    return (rep.removed || []).includes(name);
  }

  /** Removes every sandbox of this root and prefix; returns their names. */
  async removeAll() {
    await this._connect();
    const rep = await this._call("remove", { prefix: this.prefix || undefined, all: true });
    return rep.removed || [];
  }

  /**
   * Subscribes to the controller's events: once the promise resolves, no
   * event is missed. Iterate the result until signal aborts (or break out
   * of the loop); it ends when the controller goes away.
   * @param {{signal?: AbortSignal}} [options]
   */
  async subscribe(options = {}) {
    await this._connect();
    const conn = await this._dial();
    const signal = options.signal;
    const onAbort = () => conn.socket.destroy();
    signal?.addEventListener("abort", onAbort, { once: true });
    const close = () => {
      signal?.removeEventListener("abort", onAbort);
      conn.socket.destroy();
    };
    try {
      conn.socket.write(JSON.stringify({ type: "subscribe" }) + "\n");
      unwrap(await conn.readLine());
    } catch (err) {
      close();
      throw err;
    }
    return (async function* events() {
      try {
        for (;;) {
          const line = await conn.readLine().catch(() => null);
          if (line == null) return;
          yield JSON.parse(line);
        }
      } finally {
        close();
      }
    })();
  }

  _ref(name) {
    return { prefix: this.prefix || undefined, name };
  }

  // _connect makes sure a controller of a protocol we speak answers,
  // starting one for the root when none does.
  _connect() {
    if (!this._ready) {
      this._ready = this._start().catch((err) => {
        this._ready = null;
        throw err;
      });
    }
    return this._ready;
  }

  async _start() {
    const sayHello = () =>
      this._call("hello", { client: "typescript" }).catch((err) => {
        // a controller from before the handshake speaks version 1
        if (err instanceof SandboxError && err.kind === "invalid") return { protocol: 1, features: [] };
        throw err;
      });
    let hello = await sayHello().catch((err) => err);
    if (hello instanceof SandboxError && hello.kind === "unavailable") {
      await this._startController();
      hello = await sayHello();
    }
    if (hello instanceof Error) throw hello;
    if (hello.protocol !== PROTOCOL_VERSION) {
      throw new SandboxError(
        `the controller for ${this.root} speaks protocol ${hello.protocol}; this client speaks ${PROTOCOL_VERSION}`,
        "unavailable",
      );
    }
    return hello;
  }

  async _startController() {
    const exe = this.exe || findOnPath("sandboxdesk");
    if (!exe) {
      throw new SandboxError(`no controller is running for ${this.root} and sandboxdesk is not on PATH to start one`, "unavailable");
    }
    mkdirSync(this.root, { recursive: true, mode: 0o700 });
    const logPath = path.join(this.root, "serve.log");
    const log = openSync(logPath, "a", 0o600);
    let exited = false;
    try {
      const child = spawn(exe, ["serve", "--root", this.root], { detached: true, stdio: ["ignore", log, log], cwd: "/" });
      child.on("exit", () => (exited = true));
      child.on("error", () => (exited = true));
      child.unref();
      this.notices(`sandboxdesk: no controller was running for ${this.root}; started one (pid ${child.pid}, log ${logPath})`);
    } finally {
      closeSync(log);
    }
    // another client may have started one at the same moment: ours then
    // exits, and theirs answers soon after
    for (let deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      try {
        await this._call("status", {});
        return;
      } catch {
        await new Promise((r) => setTimeout(r, exited ? 100 : 50));
      }
    }
    throw new SandboxError(`the controller for ${this.root} did not start: ${lastLine(logPath)}`, "unavailable");
  }

  // _dial opens a connection to the controller.
  _dial() {
    return new Promise((resolve, reject) => {
      let dirFd = -1;
      let target = this.socketPath;
      // a unix socket address holds about 100 bytes; a deeper root is
      // reached through a handle on its folder (Linux)
      if (Buffer.byteLength(target) > 100 && process.platform === "linux") {
        dirFd = openSync(this.root, constants.O_RDONLY | constants.O_DIRECTORY);
        target = `/proc/self/fd/${dirFd}/control.sock`;
      }
      const socket = net.createConnection(target);
      const done = () => dirFd >= 0 && closeSync(dirFd);
      socket.once("connect", () => {
        done();
        resolve(new Conn(socket));
      });
      socket.once("error", (err) => {
        done();
        reject(new SandboxError(`no controller answers for ${this.root}: ${err.message}`, "unavailable"));
      });
    });
  }

  // _call sends one request and returns its reply's body.
  async _call(type, body, signal) {
    const conn = await this._dial();
    const onAbort = () => conn.socket.destroy();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      conn.socket.write(JSON.stringify({ type, body }) + "\n");
      const line = await conn.readLine();
      return unwrap(line);
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (err instanceof SandboxError) throw err;
      throw new SandboxError(`${type}: ${err.message}`, "unavailable");
    } finally {
      signal?.removeEventListener("abort", onAbort);
      conn.socket.destroy();
    }
  }
}

function unwrap(line) {
  const rep = JSON.parse(line);
  if (!rep.ok) {
    const e = rep.error || { message: "the controller failed without saying why", kind: "unavailable" };
    throw new SandboxError(e.message, e.kind || undefined);
  }
  return rep.body;
}

/** One sandbox, as its last create, stop or inspect saw it. */
export class Sandbox {
  constructor(owner, info) {
    Object.defineProperty(this, "_owner", { value: owner });
    Object.assign(this, info);
  }

  /** Fetches the sandbox as it is now. */
  async inspect() {
    const info = await this._owner._call("inspect", this._owner._ref(this.name));
    Object.assign(this, info);
    return this;
  }

  /** Stops it, keeping it and its workspace; the next create starts it. */
  async stop() {
    const info = await this._owner._call("stop", this._owner._ref(this.name));
    Object.assign(this, info);
    return this;
  }

  /**
   * Runs a command in the sandbox. Output not sent to a stream of the
   * caller's is collected and returned as text. Aborting the signal is
   * Ctrl-C: the command gets SIGINT, and is killed if it is still running
   * after graceMs; the promise then rejects with an AbortError that
   * carries the exit code, if there was one.
   */
  async exec(args, options = {}) {
    if (typeof args === "string") args = ["sh", "-c", args];
    const conn = await this._owner._dial();
    const { socket } = conn;
    const body = { ...this._owner._ref(this.name), args };
    if (options.env) body.env = Object.entries(options.env).map(([k, v]) => `${k}=${v}`);
    if (options.cwd) body.dir = options.cwd;
    socket.write(JSON.stringify({ type: "exec", body }) + "\n");
    const send = (type, payload = Buffer.alloc(0)) => {
      const hdr = Buffer.alloc(5);
      hdr[0] = type;
      hdr.writeUInt32BE(payload.length, 1);
      socket.write(Buffer.concat([hdr, payload]));
    };
    const collected = { stdout: [], stderr: [] };
    const sink = (name) => {
      const dst = options[name];
      if (!dst) return (chunk) => collected[name].push(chunk);
      if (typeof dst === "function") return dst;
      return (chunk) => dst.write(chunk);
    };
    const out = { [F.stdout]: sink("stdout"), [F.stderr]: sink("stderr") };
    const signal = options.signal;
    let killTimer;
    const onAbort = () => {
      send(F.signal, Buffer.from([SIGINT]));
      killTimer = setTimeout(() => socket.destroy(), options.graceMs ?? 10_000);
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    try {
      sendStdin(options.stdin, send).catch(() => socket.destroy());
      for (;;) {
        const [type, payload] = await conn.readFrame().catch((err) => {
          if (signal?.aborted) throw abortError(signal, null);
          throw new SandboxError(`exec in ${this.name}: connection lost: ${err.message}`, "unavailable");
        });
        if (type === F.stdout || type === F.stderr) {
          out[type](payload);
        } else if (type === F.exit) {
          const exitCode = payload.readInt32BE(0);
          if (signal?.aborted) throw abortError(signal, exitCode);
          return {
            exitCode,
            stdout: Buffer.concat(collected.stdout).toString("utf8"),
            stderr: Buffer.concat(collected.stderr).toString("utf8"),
          };
        } else if (type === F.error) {
          throw new SandboxError(`exec in ${this.name}: ${payload.toString("utf8")}`);
        }
      }
    } finally {
      clearTimeout(killTimer);
      signal?.removeEventListener("abort", onAbort);
      socket.destroy();
    }
  }
}

function abortError(signal, exitCode) {
  const err = new Error("the command was interrupted", { cause: signal.reason });
  err.name = "AbortError";
  err.exitCode = exitCode;
  return err;
}

// sendStdin sends the command's input in frames, then its end.
async function sendStdin(stdin, send) {
  if (stdin != null) {
    const chunks = typeof stdin === "string" || stdin instanceof Uint8Array ? [stdin] : stdin;
    for await (let chunk of chunks) {
      chunk = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      for (let i = 0; i < chunk.length; i += MAX_FRAME) send(F.stdin, chunk.subarray(i, i + MAX_FRAME));
    }
  }
  send(F.stdinClose);
}

// Conn reads lines and frames from a socket.
class Conn {
  constructor(socket) {
    this.socket = socket;
    this.buf = Buffer.alloc(0);
    this.waiter = null;
    this.ended = null;
    socket.on("data", (d) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
      this._wake();
    });
    const end = (err) => {
      this.ended = err || new Error("the controller closed the connection");
      this._wake();
    };
    socket.on("end", () => end());
    socket.on("close", () => end());
    socket.on("error", end);
  }

  _wake() {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  async _need(ready) {
    for (;;) {
      const got = ready();
      if (got !== undefined) return got;
      if (this.ended) throw this.ended;
      await new Promise((r) => (this.waiter = r));
    }
  }

  readLine() {
    return this._need(() => {
      const i = this.buf.indexOf(10);
      if (i < 0) return undefined;
      const line = this.buf.subarray(0, i).toString("utf8");
      this.buf = this.buf.subarray(i + 1);
      return line;
    });
  }

  readFrame() {
    return this._need(() => {
      if (this.buf.length < 5) return undefined;
      const n = this.buf.readUInt32BE(1);
      if (n > MAX_FRAME) throw new SandboxError(`a frame of ${n} bytes is over the limit`, "unavailable");
      if (this.buf.length < 5 + n) return undefined;
      const frame = [this.buf[0], this.buf.subarray(5, 5 + n)];
      this.buf = this.buf.subarray(5 + n);
      return frame;
    });
  }
}

function findOnPath(name) {
  for (const dir of (process.env.PATH || "").split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {}
  }
  return undefined;
}

function lastLine(file) {
  try {
    const lines = readFileSync(file, "utf8").trim().split("\n");
    return lines[lines.length - 1] || "it exited without saying why";
  } catch {
    return "it exited without saying why";
  }
}
