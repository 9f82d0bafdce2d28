"""A cube_view --serve under test: the server started on an experiment
(under valgrind with VALGRIND=1 in the environment), its page's data, its
pane answers, cube_dump's rows of the same experiment, and the stop by a
signal.  Used by tests/cli/test_cube_view.sh and tests/tsan_cube_view.sh."""
import json, os, re, subprocess, urllib.request


class Served:
    def __init__(self, prog, exp):
        cmd = [prog, "--serve", exp]
        if os.environ.get("VALGRIND") == "1":
            cmd = ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
                   "--errors-for-leak-kinds=definite"] + cmd
        self.prog, self.exp = prog, exp
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)

    def start(self, timeout=60):
        """Read the URL, fetch the page and its data."""
        self.base, self.token = self.p.stdout.readline().strip().split("/?token=")
        page = urllib.request.urlopen("%s/?token=%s" % (self.base, self.token), timeout=timeout).read().decode()
        self.d = json.loads(re.search(r'id="cube-data">(.*?)</script>', page, re.S).group(1))
        self.mi = {m["uniq"]: i for i, m in enumerate(self.d["metrics"])}
        self.cid = {c["id"]: i for i, c in enumerate(self.d["cnodes"])}

    def pane_bytes(self, q, timeout=60):
        return urllib.request.urlopen("%s/api/pane?token=%s&%s" % (self.base, self.token, q),
                                      timeout=timeout).read()

    def pane(self, q, timeout=60):
        return json.loads(self.pane_bytes(q, timeout))

    def dump(self, *args):
        out = subprocess.run([os.path.join(os.path.dirname(self.prog), "cube_dump"), "-s", "json"] + list(args)
                             + [self.exp], stdout=subprocess.PIPE, check=True).stdout
        return json.loads(out)

    def stop(self, sig, timeout=120):
        """Send sig; the exit status, or "hung" (then killed)."""
        self.p.send_signal(sig)
        try:
            return self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            return "hung"
