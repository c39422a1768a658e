// The reference's examples of named sandboxes, run against a real
// controller: the root in $SANDBOXDESK_TEST_ROOT (make clients-test starts one).

import assert from "node:assert/strict";
import { test } from "node:test";
import { GiB, MiB, Sandboxes } from "../index.js";

const root = process.env.SANDBOXDESK_TEST_ROOT;
const skip = root ? false : "SANDBOXDESK_TEST_ROOT is not set: run through make clients-test, which starts a controller";

test("conformance: reuse, rebuild, replace, list, remove, removeAll", { skip }, async () => {
  const sandboxes = new Sandboxes({ root, prefix: "conf-ts" });
  const other = new Sandboxes({ root, prefix: "conf-ts-other" });
  await sandboxes.removeAll();
  await other.removeAll();

  // meet-or-exceed: the big one serves the small ask; a bigger ask rebuilds
  const big = await sandboxes.create("w", { memory: GiB(2) });
  const small = await sandboxes.create("w", { memory: MiB(256) });
  assert.equal(small.id, big.id, "256 MiB after 2 GiB reuses");
  const bigger = await sandboxes.create("w", { memory: GiB(4) });
  assert.notEqual(bigger.id, big.id, "4 GiB after 2 GiB rebuilds");

  // ceilings meet-or-undercut: an hour's entitlement does not serve a minute
  const hour = await sandboxes.create("w", { maxLifetimeMs: 60 * 60 * 1000 });
  const minute = await sandboxes.create("w", { maxLifetimeMs: 60_000 });
  assert.notEqual(minute.id, hour.id, "a one-minute lifetime after a one-hour one rebuilds");

  // replace empties the workspace, and is not remembered
  await minute.exec(["sh", "-c", "echo kept > /workspace/file.txt"]);
  const fresh = await sandboxes.create("w", { replace: true });
  assert.notEqual(fresh.id, minute.id, "replace builds a new sandbox");
  const ls = await fresh.exec(["ls", "-A", "/workspace"]);
  assert.equal(ls.stdout, "", "the workspace after replace is empty");
  const again = await sandboxes.create("w");
  assert.equal(again.id, fresh.id, "the create after a replace reuses it");

  // list is scoped to the prefix
  await other.create("x");
  assert.deepEqual((await sandboxes.list()).map((s) => s.name), ["w"]);
  assert.deepEqual((await other.list()).map((s) => s.name), ["x"]);

  // remove reports whether there was anything
  assert.equal(await sandboxes.remove("w"), true);
  assert.equal(await sandboxes.remove("w"), false);

  assert.deepEqual(await other.removeAll(), ["x"]);
  assert.deepEqual(await other.list(), []);
});
