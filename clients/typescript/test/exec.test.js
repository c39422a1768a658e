// exec's streams, exit status, interruption and errors against a real
// controller: the root in $SANDBOXDESK_TEST_ROOT.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PassThrough } from "node:stream";
import { PROTOCOL_VERSION, Sandboxes, SandboxError } from "../index.js";

const root = process.env.SANDBOXDESK_TEST_ROOT;
const skip = root ? false : "SANDBOXDESK_TEST_ROOT is not set: run through make clients-test, which starts a controller";
const sandboxes = new Sandboxes({ root, prefix: "exec-ts" });
let box;

before(async () => {
  if (!skip) box = await sandboxes.create("w");
});
after(async () => {
  if (!skip) await sandboxes.removeAll();
});

test("hello names the protocol", { skip }, async () => {
  const hello = await sandboxes.hello();
  assert.equal(hello.protocol, PROTOCOL_VERSION);
  assert.ok(hello.requests.includes("exec"));
});

test("stdin in, both streams and the exit status out", { skip }, async () => {
  const res = await box.exec(["sh", "-c", "tr a-z A-Z; echo oops >&2; exit 3"], { stdin: "shout\n" });
  assert.deepEqual(res, { exitCode: 3, stdout: "SHOUT\n", stderr: "oops\n" });
});

test("output to streams of the caller's, input from one", { skip }, async () => {
  const input = new PassThrough();
  input.end(Buffer.alloc(3 << 20, 97)); // 3 MiB: more than one frame
  const chunks = [];
  const res = await box.exec(["wc", "-c"], { stdin: input, stdout: (c) => chunks.push(Buffer.from(c)) });
  assert.equal(res.exitCode, 0);
  assert.equal(Buffer.concat(chunks).toString().trim(), String(3 << 20));
});

test("env and cwd reach the command", { skip }, async () => {
  const res = await box.exec(["sh", "-c", 'echo "$GREETING from $(pwd)"'], { env: { GREETING: "hi" }, cwd: "/tmp" });
  assert.equal(res.stdout, "hi from /tmp\n");
});

test("aborting is Ctrl-C: SIGINT, and the command's own answer comes back", { skip }, async () => {
  const ac = new AbortController();
  const script = "trap 'echo interrupted; exit 130' INT; echo ready; while :; do sleep 0.1; done";
  let seen = "";
  const run = box.exec(["sh", "-c", script], {
    signal: ac.signal,
    stdout: (c) => {
      seen += Buffer.from(c).toString();
      if (seen.includes("ready\n")) ac.abort();
    },
  });
  await assert.rejects(run, (err) => err.name === "AbortError" && err.exitCode === 130);
  assert.equal(seen, "ready\ninterrupted\n");
});

test("subscribe hears a sandbox start", { skip }, async () => {
  const ac = new AbortController();
  const events = await sandboxes.subscribe({ signal: ac.signal });
  const created = sandboxes.create("events");
  let heard;
  for await (const e of events) {
    if (e.sandbox === "exec-ts-events" && e.state === "running") {
      heard = e;
      break;
    }
  }
  ac.abort();
  await created;
  assert.equal(heard?.kind, "state");
  await sandboxes.remove("events");
});

test("errors carry their kind", { skip }, async () => {
  await assert.rejects(sandboxes.create("Not/A/Name"), (err) => err instanceof SandboxError && err.kind === "invalid");
  await assert.rejects(sandboxes.get("missing"), (err) => err instanceof SandboxError && err.kind === "notFound");
  const gone = await sandboxes.create("gone");
  await sandboxes.remove("gone");
  await assert.rejects(gone.exec(["true"]), (err) => err instanceof SandboxError && /no sandbox named/.test(err.message));
});
