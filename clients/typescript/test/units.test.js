// The helpers that need no controller: sizes and the default root.

import assert from "node:assert/strict";
import { test } from "node:test";
import { GiB, MiB, defaultRoot } from "../index.js";

test("sizes are bytes", () => {
  assert.equal(MiB(256), 256 * 1024 * 1024);
  assert.equal(GiB(2), 2048 * 1024 * 1024);
});

test("the default root follows the app's", () => {
  const cases = [
    [{ SANDBOXDESK_ROOT: "/srv/sbx" }, "linux", "/home/ann", "/srv/sbx"],
    [{ XDG_DATA_HOME: "/data" }, "linux", "/home/ann", "/data/sandboxdesk"],
    [{ XDG_DATA_HOME: "relative" }, "linux", "/home/ann", "/home/ann/.local/share/sandboxdesk"],
    [{}, "linux", "/home/ann", "/home/ann/.local/share/sandboxdesk"],
    [{}, "darwin", "/Users/ann", "/Users/ann/Library/Application Support/sandboxdesk"],
  ];
  for (const [env, platform, home, want] of cases) {
    assert.equal(defaultRoot(env, platform, home), want, `${platform} ${JSON.stringify(env)}`);
  }
});
