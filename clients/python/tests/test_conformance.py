"""The reference's examples of named sandboxes, run against a real
controller: the root in $SANDBOXDESK_TEST_ROOT (make clients-test starts one)."""

import os
import unittest

from sandboxdesk import GiB, MiB, Sandboxes

ROOT = os.environ.get("SANDBOXDESK_TEST_ROOT")
NEEDS_ROOT = "SANDBOXDESK_TEST_ROOT is not set: run through make clients-test, which starts a controller"


@unittest.skipUnless(ROOT, NEEDS_ROOT)
class Conformance(unittest.TestCase):
    def test_reuse_rebuild_replace_list_remove(self):
        sandboxes = Sandboxes(root=ROOT, prefix="conf-py")
        other = Sandboxes(root=ROOT, prefix="conf-py-other")
        sandboxes.remove_all()
        other.remove_all()

        # meet-or-exceed: the big one serves the small ask; a bigger ask rebuilds
        big = sandboxes.create("w", memory=GiB(2))
        small = sandboxes.create("w", memory=MiB(256))
        self.assertEqual(small.id, big.id, "256 MiB after 2 GiB reuses")
        bigger = sandboxes.create("w", memory=GiB(4))
        self.assertNotEqual(bigger.id, big.id, "4 GiB after 2 GiB rebuilds")

        # ceilings meet-or-undercut: an hour's entitlement does not serve a minute
        hour = sandboxes.create("w", max_lifetime=60 * 60)
        minute = sandboxes.create("w", max_lifetime=60)
        self.assertNotEqual(minute.id, hour.id, "a one-minute lifetime after a one-hour one rebuilds")

        # replace empties the workspace, and is not remembered
        minute.exec(["sh", "-c", "echo kept > /workspace/file.txt"])
        fresh = sandboxes.create("w", replace=True)
        self.assertNotEqual(fresh.id, minute.id, "replace builds a new sandbox")
        self.assertEqual(fresh.exec(["ls", "-A", "/workspace"]).stdout, b"", "the workspace after replace is empty")
        again = sandboxes.create("w")
        self.assertEqual(again.id, fresh.id, "the create after a replace reuses it")

        # list is scoped to the prefix
        other.create("x")
        self.assertEqual([s["name"] for s in sandboxes.list()], ["w"])
        self.assertEqual([s["name"] for s in other.list()], ["x"])

        # remove reports whether there was anything
        self.assertIs(sandboxes.remove("w"), True)
        self.assertIs(sandboxes.remove("w"), False)

        self.assertEqual(other.remove_all(), ["x"])
        self.assertEqual(other.list(), [])


if __name__ == "__main__":
    unittest.main()
