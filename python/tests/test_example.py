"""examples/python/quickstart.py runs and prints its results."""

import os
import subprocess
import sys
import unittest

from common import REPO


class QuickstartTest(unittest.TestCase):
    def test_runs(self):
        script = os.path.join(REPO, 'examples', 'python', 'quickstart.py')
        r = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('per_token_cast: float8_e4m3fn (4, 256)', r.stdout)
        self.assertIn('topk_gate: [[1, 3], [7, 0]]', r.stdout)


if __name__ == '__main__':
    unittest.main()
