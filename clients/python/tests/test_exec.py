"""exec's streams, exit status, interruption and errors, and the context
managers, against a real controller: the root in $SANDBOXDESK_TEST_ROOT."""

import io
import os
import threading
import unittest

from sandboxdesk import PROTOCOL_VERSION, Interrupted, SandboxError, Sandboxes

ROOT = os.environ.get("SANDBOXDESK_TEST_ROOT")
NEEDS_ROOT = "SANDBOXDESK_TEST_ROOT is not set: run through make clients-test, which starts a controller"
TRAP = "trap 'echo interrupted; exit 130' INT; echo ready; while :; do sleep 0.1; done"


@unittest.skipUnless(ROOT, NEEDS_ROOT)
class Exec(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sandboxes = Sandboxes(root=ROOT, prefix="exec-py")
        cls.box = cls.sandboxes.create("w")

    @classmethod
    def tearDownClass(cls):
        cls.sandboxes.remove_all()

    def test_hello(self):
        hello = self.sandboxes.hello()
        self.assertEqual(hello["protocol"], PROTOCOL_VERSION)
        self.assertIn("exec", hello["requests"])

    def test_streams_and_exit_status(self):
        res = self.box.exec(["sh", "-c", "tr a-z A-Z; echo oops >&2; exit 3"], stdin="shout\n")
        self.assertEqual((res.exit_code, res.stdout, res.stderr), (3, b"SHOUT\n", b"oops\n"))

    def test_file_in_function_out(self):
        data = b"a" * (3 << 20)  # more than one frame
        chunks = []
        res = self.box.exec(["wc", "-c"], stdin=io.BytesIO(data), stdout=chunks.append)
        self.assertEqual(res.exit_code, 0)
        self.assertEqual(b"".join(chunks).strip(), str(len(data)).encode())

    def test_env_and_cwd(self):
        res = self.box.exec('echo "$GREETING from $(pwd)"', env={"GREETING": "hi"}, cwd="/tmp")
        self.assertEqual(res.stdout, b"hi from /tmp\n")

    def test_ctrl_c_is_sigint(self):
        seen = []

        def out(chunk):
            seen.append(chunk)
            if b"".join(seen) == b"ready\n":
                raise KeyboardInterrupt  # as Ctrl-C would, once, mid-command

        with self.assertRaises(KeyboardInterrupt) as caught:
            self.box.exec(["sh", "-c", TRAP], stdout=out)
        self.assertEqual(caught.exception.exit_code, 130)
        self.assertEqual(b"".join(seen), b"ready\ninterrupted\n")

    def test_timeout_interrupts(self):
        with self.assertRaises(Interrupted) as caught:
            self.box.exec(["sh", "-c", "sleep 600"], timeout=0.2, grace=0.5)
        # sh gets SIGINT and dies of it, or is killed after the grace
        self.assertIn(caught.exception.exit_code, (130, None))

    def test_subscribe(self):
        events = self.sandboxes.subscribe()
        creating = threading.Thread(target=self.sandboxes.create, args=("events",))
        creating.start()
        try:
            event = next(events)
            while not (event.get("sandbox") == "exec-py-events" and event.get("state") == "running"):
                event = next(events)
            self.assertEqual(event["kind"], "state")
        finally:
            events.close()
            creating.join()
            self.sandboxes.remove("events")

    def test_errors_carry_their_kind(self):
        with self.assertRaises(SandboxError) as caught:
            self.sandboxes.create("Not/A/Name")
        self.assertEqual(caught.exception.kind, "invalid")
        with self.assertRaises(SandboxError) as caught:
            self.sandboxes.get("missing")
        self.assertEqual(caught.exception.kind, "notFound")

    def test_context_manager_stops(self):
        with self.sandboxes.create("ctx") as box:
            self.assertEqual(box.state, "running")
            self.assertTrue(box.created_at)
        self.assertEqual(self.sandboxes.get("ctx").state, "stopped")
        self.assertTrue(self.sandboxes.remove("ctx"))


if __name__ == "__main__":
    unittest.main()
