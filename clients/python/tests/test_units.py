"""The helpers that need no controller: sizes and the default root."""

import unittest

from sandboxdesk import GiB, MiB, default_root


class Units(unittest.TestCase):
    def test_sizes_are_bytes(self):
        self.assertEqual(MiB(256), 256 << 20)
        self.assertEqual(GiB(2), 2048 << 20)
        self.assertEqual(GiB(0.5), 512 << 20)

    def test_default_root_follows_the_apps(self):
        cases = [
            ({"SANDBOXDESK_ROOT": "/srv/sbx"}, "linux", "/home/ann", "/srv/sbx"),
            ({"XDG_DATA_HOME": "/data"}, "linux", "/home/ann", "/data/sandboxdesk"),
            ({"XDG_DATA_HOME": "relative"}, "linux", "/home/ann", "/home/ann/.local/share/sandboxdesk"),
            ({}, "linux", "/home/ann", "/home/ann/.local/share/sandboxdesk"),
            ({}, "darwin", "/Users/ann", "/Users/ann/Library/Application Support/sandboxdesk"),
        ]
        for env, platform, home, want in cases:
            with self.subTest(platform=platform, env=env):
                self.assertEqual(default_root(env, platform, home), want)


if __name__ == "__main__":
    unittest.main()
