"""The benchmark's Python side without a GPU or torch: bench/report.py
rebuilds each saved run (bench/results/*.json) into a table of every tk row,
keeps the hand-written part of a page, names the driver it is given; and
bench/compare.py takes each side's fastest run; and
bench/peers/peers.py --dry-run still plans every (row, peer) that a saved run
timed, so a change to the row parsing that would silently drop peer cells
fails here rather than in a device call."""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REPORT = os.path.join(ROOT, "bench", "report.py")
PEERS = os.path.join(ROOT, "bench", "peers", "peers.py")
COMPARE = os.path.join(ROOT, "bench", "compare.py")
RESULTS = sorted(glob.glob(os.path.join(ROOT, "bench", "results", "*.json")))
MARKER = "<!-- Written by hand below this line; bench/report.py keeps it. -->"


def read(path):
    with open(path) as f:
        return f.read()


def load(path):
    with open(path) as f:
        return json.load(f)


def dump(obj, path):
    with open(path, "w") as f:
        json.dump(obj, f)


def run(*args):
    p = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p.stdout


def table_rows(md):
    """The first table's data rows: (op, shape, variant)."""
    rows, seen_sep = [], False
    for line in md.splitlines():
        if not line.startswith("|"):
            if seen_sep:
                break
            continue
        if line.startswith("|---"):
            seen_sep = True
            continue
        if seen_sep:
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows.append(tuple(cells[:3]))
    return rows


class Report(unittest.TestCase):
    def test_there_are_saved_runs(self):
        self.assertGreaterEqual(len(RESULTS), 1, "bench/results/ holds no saved run")

    def test_every_saved_run_rebuilds_with_a_row_per_tk_row(self):
        for path in RESULTS:
            with self.subTest(results=os.path.basename(path)), tempfile.TemporaryDirectory() as tmp:
                saved = load(path)
                md_path = os.path.join(tmp, "page.md")
                run(REPORT, "--results", path, "--md", md_path)
                md = read(md_path)
                want = [(r["op"], r["shape"], r["variant"]) for r in saved["tk"]["rows"]]
                self.assertEqual(table_rows(md), want)
                self.assertIn(saved["tk"]["commit"], md)
                if saved["peers"]:
                    self.assertRegex(md, r"geometric mean over the rows both timed: \S.* [0-9.]+x over")

    def test_hand_written_text_survives_and_driver_is_named(self):
        path = RESULTS[-1]
        with tempfile.TemporaryDirectory() as tmp:
            md_path = os.path.join(tmp, "page.md")
            with open(md_path, "w") as f:
                f.write("# old generated part\n\n" + MARKER + "\n\nA paragraph written by hand.\n")
            saved = load(path)
            saved["tk"].pop("driver_version", None)
            tk_path = os.path.join(tmp, "tk.json")
            dump(saved["tk"], tk_path)
            saved_path = os.path.join(tmp, "saved.json")
            run(REPORT, "--tk", tk_path, "--md", md_path, "--driver", "999.1.2", "--save", saved_path)
            md = read(md_path)
            self.assertNotIn("# old generated part", md)
            self.assertIn("A paragraph written by hand.", md)
            self.assertIn("SMs, driver 999.1.2 (CUDA driver API", md)
            # --save keeps the driver: the saved run rebuilds the same page.
            self.assertEqual(load(saved_path)["tk"]["driver_version"], "999.1.2")
            again = os.path.join(tmp, "again.md")
            run(REPORT, "--results", saved_path, "--md", again)
            self.assertEqual(table_rows(read(again)), table_rows(md))
            self.assertIn("SMs, driver 999.1.2 (CUDA driver API", read(again))
            run(REPORT, "--tk", tk_path, "--md", md_path)  # no driver given: none claimed
            self.assertIn("SMs, (CUDA driver API", read(md_path))


class PeersDryRun(unittest.TestCase):
    def test_every_timed_peer_cell_is_still_planned(self):
        checked = 0
        for path in RESULTS:
            saved = load(path)
            timed = {(p["op"], p["shape"], p["variant"], p["impl"])
                     for part in saved["peers"] for p in part["rows"]}
            if not timed:
                continue
            checked += 1
            with self.subTest(results=os.path.basename(path)), tempfile.TemporaryDirectory() as tmp:
                tk_path = os.path.join(tmp, "tk.json")
                dump(saved["tk"], tk_path)
                out = run(PEERS, "--tk", tk_path, "--dry-run")
                planned, row = set(), None
                labels = {f"{r['op']} {r['shape']} {r['variant']}".strip(): (r["op"], r["shape"], r["variant"])
                          for r in saved["tk"]["rows"]}
                for line in out.splitlines():
                    m = re.match(r"\[\d+/\d+\] (.*)$", line)
                    if m:
                        row = labels.get(m.group(1).strip())
                        continue
                    m = re.match(r"    (TileKernels|torch eager|torch\.compile)\s+run\s", line)
                    if m and row:
                        planned.add(row + (m.group(1),))
                self.assertGreater(len(planned & timed), 0, "the dry run's output was not understood")
                missing = sorted(timed - planned)
                self.assertEqual(missing, [], f"{len(missing)} timed cells no longer planned, e.g. {missing[:3]}")
        self.assertGreater(checked, 0, "no saved run has peer timings to check")


class Compare(unittest.TestCase):
    @staticmethod
    def side(tmp, name, times, commit):
        path = os.path.join(tmp, name)
        dump({"commit": commit, "device": "test GPU",
              "rows": [{"op": op, "shape": "8x8", "variant": v, "us": us} for (op, v), us in times.items()]}, path)
        return path

    def test_fastest_run_of_each_side_and_geometric_means(self):
        with tempfile.TemporaryDirectory() as tmp:
            old = [self.side(tmp, "a1.json", {("g", "x"): 10.0, ("g", "y"): 4.0, ("h", ""): 2.0}, "aaa"),
                   self.side(tmp, "a2.json", {("g", "x"): 12.0, ("g", "y"): 5.0, ("h", ""): 1.0}, "aaa")]
            new = [self.side(tmp, "b1.json", {("g", "x"): 9.0, ("g", "y"): 1.0, ("k", ""): 3.0}, "bbb"),
                   self.side(tmp, "b2.json", {("g", "x"): 5.0, ("g", "y"): 2.0}, "bbb")]
            out = run(COMPARE, "--old", *old, "--new", *new)
        self.assertIn("| g | 8x8 | x | 10.00 | 5.00 | 0.500 |", out)  # the fastest of each side
        self.assertIn("| g | 8x8 | y | 4.00 | 1.00 | 0.250 |", out)
        self.assertIn("| g | 2 | 0.354 |", out)  # sqrt(0.5 * 0.25)
        self.assertNotIn("| h |", out)  # timed on one side only
        self.assertIn("2 rows timed on one side only are left out.", out)
        self.assertIn("old aaa (2 runs) against new bbb (2 runs) on test GPU", out)

    def test_sides_without_a_common_row_are_an_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            a = self.side(tmp, "a.json", {("g", "x"): 1.0}, "a")
            b = self.side(tmp, "b.json", {("h", "x"): 1.0}, "b")
            p = subprocess.run([sys.executable, COMPARE, "--old", a, "--new", b], capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("no row in common", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
