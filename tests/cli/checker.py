"""What the CLI tests (test_cli.py, test_bench.py, test_bench_table.py, test_ncu_table.py) share:
a count of passed and failed checks, and running the program under test with a timeout."""
import subprocess
import time


class Checker:
    def __init__(self, exe, timeout):
        self.exe = exe
        self.timeout = timeout
        self.passed = 0
        self.failed = 0

    def check(self, ok, name, detail=""):
        """Counts one check; prints it with `detail` when it fails. Returns `ok`."""
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL: {name}" + (f"\n      {detail}" if detail else ""), flush=True)
        return ok

    def run_timed(self, args):
        """Runs the program; returns (exit code, stdout, stderr, seconds). Exit code None on timeout."""
        t0 = time.monotonic()
        try:
            p = subprocess.run([self.exe] + [str(a) for a in args], capture_output=True, text=True,
                               timeout=self.timeout)
            return p.returncode, p.stdout, p.stderr, time.monotonic() - t0
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            return None, out, f"timed out after {self.timeout} s", time.monotonic() - t0
