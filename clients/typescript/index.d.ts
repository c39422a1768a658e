// Type declarations for the sandboxdesk client (index.js).

/** The protocol version this client speaks. */
export declare const PROTOCOL_VERSION: number;

/** n mebibytes, in bytes. */
export declare function MiB(n: number): number;
/** n gibibytes, in bytes. */
export declare function GiB(n: number): number;

/** The root a controller owns when none is named: $SANDBOXDESK_ROOT, else
 * the per-user data folder the app and the CLI use. */
export declare function defaultRoot(env?: Record<string, string | undefined>, platform?: string, home?: string): string;

export type ErrorKind = "invalid" | "notFound" | "conflict" | "unavailable" | "exhausted";

/** An error the controller reported. */
export declare class SandboxError extends Error {
  readonly kind: ErrorKind | undefined;
  constructor(message: string, kind?: ErrorKind);
}

export type State = "stopped" | "queued" | "starting" | "running" | "stopping" | "suspended" | "broken";

/** A sandbox as list() and inspect show it. Sizes in MiB, durations in ms. */
export interface SandboxInfo {
  name: string;
  prefix?: string;
  id: string;
  state: State;
  image: string;
  backend: string;
  /** RFC 3339; a rebuild gets a new id and a new createdAt. */
  createdAt: string;
  idleTimeoutMs: number;
  maxLifetimeMs: number;
  stopGraceMs: number;
  memoryMiB: number;
  reservedMiB?: number;
  /** While a VM runs: "kvm" (hardware virtualisation) or "tcg" (software emulation). */
  accel?: string;
  memoryLimitMiB?: number;
  cpus: number;
  diskMiB: number;
  network: "on" | "off" | "host";
  queuePosition?: number;
  startedAt?: string;
  lastUsedAt?: string;
  checkpoint?: boolean;
  workspace: string;
  error?: string;
}

export interface SandboxesOptions {
  /** Root folder; default $SANDBOXDESK_ROOT, else the per-user one. */
  root?: string;
  /** Fleet prefix: "ci" names sandboxes ci-<name>. */
  prefix?: string;
  /** The sandboxdesk program that starts a controller; default: on PATH. */
  exe?: string;
  /** Where the word about a started controller goes; default stderr. */
  notices?: (line: string) => void;
}

/** What a caller asks of a sandbox; an option left out is unset. */
export interface CreateOptions {
  image?: string;
  backend?: string;
  /** Bytes (use MiB() / GiB()); a sandbox holding at least this is reused. */
  memory?: number;
  cpus?: number;
  /** Bytes. */
  disk?: number;
  idleTimeoutMs?: number;
  /** A sandbox entitled to live longer is rebuilt. */
  maxLifetimeMs?: number;
  stopGraceMs?: number;
  /** "on" (outbound only, the default), "off" (none) or "host" (the host's own network). */
  network?: "on" | "off" | "host";
  /** Remove the sandbox and its workspace first; never remembered. */
  replace?: boolean;
  /** Aborting calls a create that waits for a slot off. */
  signal?: AbortSignal;
}

export type Input = string | Uint8Array | AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;
export type Output = { write(chunk: Uint8Array): unknown } | ((chunk: Uint8Array) => void);

export interface ExecOptions {
  /** Input for the command; without it, it reads end of file at once. */
  stdin?: Input;
  /** Where output goes; left out, it is collected and returned as text. */
  stdout?: Output;
  stderr?: Output;
  env?: Record<string, string>;
  /** Folder inside the sandbox; default /workspace. */
  cwd?: string;
  /** Aborting is Ctrl-C: SIGINT, then a kill after graceMs (10 s). */
  signal?: AbortSignal;
  graceMs?: number;
}

export interface ExecResult {
  /** The command's exit status; 128+N when killed by signal N. */
  exitCode: number;
  /** Collected output (empty when it went to a stream of yours). */
  stdout: string;
  stderr: string;
}

export interface Hello {
  protocol: number;
  features: string[];
  requests: string[];
}

export interface Event {
  seq: number;
  time: string;
  kind: "state" | "progress" | "notice";
  sandbox?: string;
  id?: string;
  state?: State | "";
  message?: string;
  progress?: number;
}

/** One sandbox, as its last create, stop or inspect saw it. */
export declare class Sandbox implements SandboxInfo {
  name: string;
  prefix?: string;
  id: string;
  state: State;
  image: string;
  backend: string;
  createdAt: string;
  idleTimeoutMs: number;
  maxLifetimeMs: number;
  stopGraceMs: number;
  memoryMiB: number;
  reservedMiB?: number;
  memoryLimitMiB?: number;
  cpus: number;
  diskMiB: number;
  network: "on" | "off" | "host";
  workspace: string;
  /** Runs a command (an argument list, or a string for sh -c). */
  exec(args: string[] | string, options?: ExecOptions): Promise<ExecResult>;
  /** Stops it, keeping it and its workspace; the next create starts it. */
  stop(): Promise<Sandbox>;
  /** Fetches it as it is now. */
  inspect(): Promise<Sandbox>;
}

/** The sandboxes of one root and prefix. */
export declare class Sandboxes {
  readonly root: string;
  readonly prefix: string;
  constructor(options?: SandboxesOptions);
  hello(): Promise<Hello>;
  /** The existing sandbox when its shape serves, else a rebuilt one. */
  create(name: string, options?: CreateOptions): Promise<Sandbox>;
  get(name: string): Promise<Sandbox>;
  list(): Promise<SandboxInfo[]>;
  /** Whether there was anything to remove. */
  remove(name: string): Promise<boolean>;
  /** The names removed. */
  removeAll(): Promise<string[]>;
  /** Resolves once subscribed; iterate the events until signal aborts. */
  subscribe(options?: { signal?: AbortSignal }): Promise<AsyncGenerator<Event, void, undefined>>;
}
